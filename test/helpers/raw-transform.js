// Jest transform for the SVG files JupyterLab's packages import as strings (webpack's
// raw loader in a JupyterLab build): the module is the file's text.
'use strict';
module.exports = {
  process(source) {
    return { code: `module.exports = ${JSON.stringify(source)};` };
  }
};
