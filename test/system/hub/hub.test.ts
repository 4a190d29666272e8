// The hosted-notebook checks of ./hub-suite.ts on Debian 12's JupyterHub 3.0.0, jupyter_server 1.23
// and Python 3.11, the project installed with `project-startup jupyter install --user`.
import { hostedNotebookSuite } from './hub-suite';

hostedNotebookSuite('debian-12');
