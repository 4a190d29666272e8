// Where things are in a site configuration file's text: the line of each JSON pointer (so a
// problem names its line), and the line and column of a parse error. Pure.

export interface TextPosition {
  line: number;
  column: number;
}

/** The line and column (1-based) of a character offset. */
export function positionOf(text: string, offset: number): TextPosition {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

/**
 * Where JSON.parse stopped: Node's message says "at position N" (Node 20) or "(line L column
 * C)" (Node 22); without either (the text ended early), the end of the text.
 */
export function parseErrorPosition(
  text: string,
  message: string
): TextPosition {
  const lineColumn = /line (\d+) column (\d+)/.exec(message);
  if (lineColumn) {
    return { line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
  }
  const position = /position (\d+)/.exec(message);
  return positionOf(text, position ? Number(position[1]) : text.length);
}

/** A JSON pointer's token: "~" and "/" escaped (RFC 6901). */
export function pointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

export interface PointerLines {
  /** The line of each pointer's key (object members) or value (array items, the root). */
  lines: ReadonlyMap<string, number>;
  /** Pointers of members whose key appears twice in the same object (JSON.parse keeps the last). */
  duplicates: readonly string[];
}

/**
 * Scans text that JSON.parse accepted and records, for each JSON pointer, the line where it
 * starts. A small scanner of its own: JSON.parse reports no positions.
 */
export function pointerLines(text: string): PointerLines {
  const lines = new Map<string, number>();
  const duplicates: string[] = [];
  let at = 0;
  let line = 1;
  const skipSpace = () => {
    while (at < text.length && /\s/.test(text[at])) {
      if (text[at] === '\n') {
        line += 1;
      }
      at += 1;
    }
  };
  const readString = (): string => {
    const start = at;
    at += 1;
    while (at < text.length && text[at] !== '"') {
      at += text[at] === '\\' ? 2 : 1;
    }
    at += 1;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const value = (pointer: string): void => {
    skipSpace();
    if (!lines.has(pointer)) {
      lines.set(pointer, line);
    }
    const c = text[at];
    if (c === '{') {
      at += 1;
      const seen = new Set<string>();
      skipSpace();
      while (at < text.length && text[at] !== '}') {
        skipSpace();
        const memberLine = line;
        const key = readString();
        const child = `${pointer}/${pointerToken(key)}`;
        if (seen.has(key)) {
          duplicates.push(child);
        }
        seen.add(key);
        lines.set(child, memberLine);
        skipSpace();
        at += 1; // ':'
        value(child);
        skipSpace();
        if (text[at] === ',') {
          at += 1;
        }
        skipSpace();
      }
      at += 1;
    } else if (c === '[') {
      at += 1;
      let index = 0;
      skipSpace();
      while (at < text.length && text[at] !== ']') {
        value(`${pointer}/${index}`);
        index += 1;
        skipSpace();
        if (text[at] === ',') {
          at += 1;
        }
        skipSpace();
      }
      at += 1;
    } else if (c === '"') {
      readString();
    } else {
      while (at < text.length && /[^\s,\]}]/.test(text[at])) {
        at += 1;
      }
    }
  };
  value('');
  return { lines, duplicates };
}
