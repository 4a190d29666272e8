// The token bucket on a clock the test moves: a burst up to the limit, refills at the set pace,
// Retry-After that is exactly long enough, clients kept apart, memory bounded.
import { ProblemError } from '../../sidecar/src/core/problems';
import { RateLimiter } from '../../sidecar/src/http/rate-limit';

function limiterAt(count: number, seconds: number) {
  const clock = { now: 5_000_000 };
  const limiter = new RateLimiter({ count, seconds }, () => clock.now);
  return { limiter, clock };
}

function refusal(take: () => void): ProblemError {
  try {
    take();
  } catch (error) {
    if (error instanceof ProblemError) {
      return error;
    }
    throw error;
  }
  throw new Error('the call was not refused');
}

it('allows a burst of `count`, then refuses with rate-limited and a Retry-After', () => {
  const { limiter } = limiterAt(5, 60);
  for (let i = 0; i < 5; i++) {
    limiter.take('alice');
  }
  const refused = refusal(() => limiter.take('alice'));
  expect(refused.toProblem()).toMatchObject({
    code: 'rate-limited',
    retryAfterSeconds: 12
  });
  expect(refused.headers).toEqual({ 'Retry-After': '12' });
});

it('the Retry-After it names is enough, and one second less is not', () => {
  const { limiter, clock } = limiterAt(5, 60);
  for (let i = 0; i < 5; i++) {
    limiter.take('alice');
  }
  const retryAfter = Number(
    refusal(() => limiter.take('alice')).headers['Retry-After']
  );
  clock.now += (retryAfter - 1) * 1000;
  refusal(() => limiter.take('alice'));
  clock.now += 1000;
  expect(() => limiter.take('alice')).not.toThrow();
});

it('refills evenly: a full window later the whole burst is back, no more', () => {
  const { limiter, clock } = limiterAt(3, 30);
  for (let i = 0; i < 3; i++) {
    limiter.take('alice');
  }
  clock.now += 3_600_000;
  for (let i = 0; i < 3; i++) {
    limiter.take('alice');
  }
  refusal(() => limiter.take('alice'));
});

it("one client's exhaustion does not limit another", () => {
  const { limiter } = limiterAt(1, 60);
  limiter.take('alice');
  refusal(() => limiter.take('alice'));
  expect(() => limiter.take('bob')).not.toThrow();
});
