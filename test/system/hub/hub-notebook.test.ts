// The notebook and terminal checks of ./hub-notebook-suite.ts on Debian 12's JupyterHub 3.0.0.
import { hubNotebookSuite } from './hub-notebook-suite';

hubNotebookSuite('debian-12');
