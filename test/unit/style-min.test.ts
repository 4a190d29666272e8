/** @jest-environment jsdom */
// The labextension's styles (scripts/style-min.js): the CSS as written, less its comments and
// spare white space, added to the page once.
import * as fs from 'node:fs';
import * as path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { minify, styleModule } = require('../../scripts/style-min.js') as {
  minify(css: string): string;
  styleModule(css: string, id: string): string;
};

describe('the minified styles', () => {
  it('drop comments and white space, and keep strings and descendant selectors as written', () => {
    expect(
      minify(
        "/* why */\n.a  .b:focus-visible ,\n.c > .d {\n  content: '\\2713' / '';\n  margin: 0  auto; /* x */\n}\n"
      )
    ).toBe(".a .b:focus-visible,.c>.d{content: '\\2713' / '';margin: 0 auto}");
  });

  it('keep every rule of style/base.css', () => {
    const css = fs.readFileSync(
      path.join(__dirname, '..', '..', 'style', 'base.css'),
      'utf8'
    );
    const rules = (text: string) => text.split('{').length;
    expect(rules(minify(css))).toBe(
      rules(css.replace(/\/\*[\s\S]*?\*\//g, ''))
    );
    expect(minify(css)).not.toContain('/*');
  });

  it('are added to the page once, however often the module runs', () => {
    const source = styleModule('.jp-X{color:red}', 'jp-X-styles');
    for (let i = 0; i < 2; i++) {
      new Function(source)();
    }
    const added = document.querySelectorAll('style#jp-X-styles');
    expect(added).toHaveLength(1);
    expect(added[0].textContent).toBe('.jp-X{color:red}');
  });
});
