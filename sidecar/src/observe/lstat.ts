// lstat as the file observations use it, and one look at the files shared by all of them: the
// project path, the paths initialize would create and the state inspection ask for some of the
// same paths, and each is asked of the kernel once per look.
import * as fs from 'node:fs';

/** An lstat that answers undefined for an absent path and throws any other error. */
export type Lstat = (p: string) => fs.Stats | undefined;

export const lstatOrUndefined: Lstat = p => {
  try {
    // Absent (ENOENT) is undefined without the cost of an exception; any other error throws.
    return fs.lstatSync(p, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return undefined;
    }
    throw error;
  }
};

/** An lstat that asks the kernel once per path; an error is not kept, so it is thrown again. */
export function lstatOnce(): Lstat {
  const seen = new Map<string, fs.Stats | undefined>();
  return p => {
    if (seen.has(p)) {
      return seen.get(p);
    }
    const stat = lstatOrUndefined(p);
    seen.set(p, stat);
    return stat;
  };
}
