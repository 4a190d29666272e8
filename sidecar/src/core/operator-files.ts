// When a file the configuration names may be believed: only when nobody but the operator could
// have written it. The file and every directory and link on the way to it (links resolved) are
// owned by root or by the user the service runs as, and neither the file nor a directory can be
// written by group or others. A directory with the sticky bit is the exception (others may add
// their own entries there but not replace ours), and so is a read-only mount (a Kubernetes
// ConfigMap or Secret, whose mount directory is world-writable but cannot be written). A file
// that holds a secret must also be unreadable by group and others. Pure: observe/operator-file.ts
// gathers the entries.

/** One step on the way to a file, as lstat (or, for the file itself, fstat of the open file) saw it. */
export interface PathEntry {
  path: string;
  kind: 'directory' | 'link' | 'file' | 'other';
  uid: number;
  mode: number;
  /** On a read-only file system (asked only where a write bit is set). */
  readOnly: boolean;
}

/** Why a file is not believed: the path at fault, what is wrong and the command that fixes it. */
export interface OperatorFileProblem {
  path: string;
  message: string;
  fix: string;
}

const STICKY = 0o1000;

function modeText(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

function whom(mode: number): string {
  const group = (mode & 0o020) !== 0;
  const other = (mode & 0o002) !== 0;
  return group && other ? 'group and others' : group ? 'its group' : 'others';
}

/**
 * The first reason the file at the end of `entries` may not be believed, or undefined.
 * `serviceUid` is undefined where the system has no uids (ownership is then not checked);
 * `secret` asks for a file only its owner can read.
 */
export function operatorFileProblem(
  entries: readonly PathEntry[],
  serviceUid: number | undefined,
  secret: boolean
): OperatorFileProblem | undefined {
  const file = entries[entries.length - 1];
  for (const entry of entries) {
    const what =
      entry === file
        ? `the ${entry.kind === 'directory' ? 'directory' : 'file'}`
        : entry.kind === 'link'
          ? `the symbolic link ${entry.path} on the way to it`
          : `the directory ${entry.path} above it`;
    const owner = serviceUid === 0 ? 'root' : `root or uid ${serviceUid}`;
    if (
      serviceUid !== undefined &&
      entry.uid !== 0 &&
      entry.uid !== serviceUid
    ) {
      return {
        path: entry.path,
        message: `${what} is owned by uid ${entry.uid}, not by ${owner} (the user the service runs as): that user could change what it says`,
        fix: `Run \`chown root ${entry.path}\` (or put the file where only ${owner} can change it).`
      };
    }
    const writable =
      (entry.kind === 'directory' || (entry.kind === 'file' && !secret)) &&
      (entry.mode & 0o022) !== 0 &&
      !(entry.kind === 'directory' && (entry.mode & STICKY) !== 0) &&
      !entry.readOnly;
    if (writable) {
      return {
        path: entry.path,
        message: `${what} can be written by ${whom(entry.mode)} (mode ${modeText(entry.mode)}): another user could change or replace it`,
        fix: `Run \`chmod go-w ${entry.path}\`.`
      };
    }
  }
  // A secret's own fix (chmod 600) takes away the write bits too.
  if (
    secret &&
    file !== undefined &&
    file.kind === 'file' &&
    (file.mode & 0o077) !== 0
  ) {
    return {
      path: file.path,
      message: `the file can be read or written by group or others (mode ${modeText(file.mode)}), and it holds a secret`,
      fix: `Run \`chmod 600 ${file.path}\`, and replace the secret: others could read it.`
    };
  }
  return undefined;
}
