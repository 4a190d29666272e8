// A token bucket per client: bursts up to `count`, refilled evenly over `seconds`.
import type { RateLimit } from '../config';
import { ProblemError } from '../problems';

const MAX_CLIENTS = 10000;

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = Date.now
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
        `Initialize allows ${this.limit.count} calls per ${this.limit.seconds} s; try again in ${retryAfter} s.`,
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
