// The styles as a module, for bundlers that import styles through JavaScript.
import './base.css';
