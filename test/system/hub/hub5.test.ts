// The hosted-notebook checks of ./hub-suite.ts on Debian 13's JupyterHub 5.2, jupyter_server 2.15,
// Python 3.13 and Node 20 (the root of .ci/trixie-root.sh), the project installed as a wheel.
import { hostedNotebookSuite } from './hub-suite';

hostedNotebookSuite('debian-13');
