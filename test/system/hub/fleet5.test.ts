// The fleet view of ./fleet-suite.ts on Debian 13's JupyterHub 5.2 (the root of .ci/trixie-root.sh).
import { fleetSuite } from './fleet-suite';

fleetSuite('debian-13');
