// The fleet view of ./fleet-suite.ts on Debian 12's JupyterHub 3.0.0, the single-user servers set
// up with `project-startup jupyter install --user` (no variable of ours in their sidecar's entry).
import { fleetSuite } from './fleet-suite';

fleetSuite('debian-12');
