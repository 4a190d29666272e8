// The one way a test waits for something to happen: poll a check, bounded both in time and in
// the number of looks, and fail with what was awaited. Nothing here counts how often it looked,
// so a slow machine only makes a test slower, never wrong.

export interface WaitOptions {
  /** What is awaited, for the error: "the sidecar's runtime file". */
  what: string;
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Pause between looks (default 50 ms). */
  intervalMs?: number;
}

/** Resolves after `ms`: only for pacing a loop, never for waiting on an outcome (use waitFor). */
export function delay(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms));
}

/**
 * Resolves with the first value of `look` that is neither undefined nor false (true for a
 * boolean check); rejects once `timeoutMs` passed or `timeoutMs / intervalMs + 1` looks were
 * spent, whichever comes first.
 */
export async function waitFor<T>(
  look: () => T | undefined | false | Promise<T | undefined | false>,
  options: WaitOptions
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10000;
  const intervalMs = options.intervalMs ?? 50;
  const looks = Math.ceil(timeoutMs / intervalMs) + 1;
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < looks; i += 1) {
    const value = await look();
    if (value !== undefined && value !== false) {
      return value;
    }
    if (Date.now() >= deadline) {
      break;
    }
    await delay(intervalMs);
  }
  throw new Error(`${options.what}: not within ${timeoutMs} ms`);
}
