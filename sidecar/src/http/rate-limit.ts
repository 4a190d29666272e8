// A token bucket per client: bursts up to `count`, refilled evenly over `seconds`. Used for
// initialize calls and for the new job ids a caller names as its allocation.
import type { RateLimit } from '../config/config';
import { ProblemError } from '../core/problems';

const MAX_CLIENTS = 10000;

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
    /** The problem's detail: what is limited and when to try again. */
    private readonly describe: (
      limit: RateLimit,
      retryAfter: number
    ) => string = (l, retryAfter) =>
      `Initialize allows ${l.count} calls per ${l.seconds} s; try again in ${retryAfter} s.`
  ) {}

  take(clientKey: string): void {
    const now = this.now();
    const ratePerMs = this.limit.count / (this.limit.seconds * 1000);
    const bucket = this.buckets.get(clientKey) ?? {
      tokens: this.limit.count,
      at: now
    };
    bucket.tokens = Math.min(
      this.limit.count,
      bucket.tokens + (now - bucket.at) * ratePerMs
    );
    bucket.at = now;
    if (bucket.tokens < 1) {
      const retryAfter = Math.max(
        1,
        Math.ceil((1 - bucket.tokens) / ratePerMs / 1000)
      );
      throw new ProblemError(
        'rate-limited',
        this.describe(this.limit, retryAfter),
        { retryAfterSeconds: retryAfter },
        { 'Retry-After': String(retryAfter) }
      );
    }
    bucket.tokens -= 1;
    this.buckets.delete(clientKey);
    this.buckets.set(clientKey, bucket);
    if (this.buckets.size > MAX_CLIENTS) {
      // Forget the least recently seen client: memory stays bounded under many clients.
      this.buckets.delete(this.buckets.keys().next().value as string);
    }
  }
}

/** The limit on new job ids one client names as its allocation (each costs a scheduler query). */
export function allocationRateLimiter(limit: RateLimit): RateLimiter {
  return new RateLimiter(
    limit,
    Date.now,
    (l, retryAfter) =>
      `The allocation parameter allows ${l.count} new job ids per ${l.seconds} s, each asked of the scheduler; try again in ${retryAfter} s.`
  );
}
