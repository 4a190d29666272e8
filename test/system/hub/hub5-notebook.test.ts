// The notebook and terminal checks of ./hub-notebook-suite.ts on Debian 13's JupyterHub 5.2
// (jupyter_server 2.15, Python 3.13, Node 20; the root of .ci/trixie-root.sh).
import { hubNotebookSuite } from './hub-notebook-suite';

hubNotebookSuite('debian-13');
