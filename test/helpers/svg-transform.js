// Jest transform for the .svg files @jupyterlab/ui-components imports as strings (its icons):
// the file's own text, as webpack's raw loader gives it in JupyterLab.
'use strict';

module.exports = {
  process(source) {
    return { code: `module.exports = ${JSON.stringify(source)};` };
  }
};
