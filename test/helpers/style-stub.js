// Jest stand-in for the stylesheets JupyterLab's packages import for effect.
'use strict';
module.exports = {};
