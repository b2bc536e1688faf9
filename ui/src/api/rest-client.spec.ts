import { RestClient } from './rest-client';
import { describeError, RestError } from './rest-error';
import { TokenStore } from './token-store';

class MemoryStorage {
  private readonly items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
}

describe('the dashboard REST client', () => {
  const realFetch = globalThis.fetch;
  let calls: { url: string; init: RequestInit }[];
  let answer: () => Response;
  beforeEach(() => {
    calls = [];
    globalThis.fetch = (async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return answer();
    }) as typeof fetch;
  });
  afterEach(() => {
    globalThis.fetch = realFetch;
  });
  const client = (token?: string): RestClient => {
    const tokens = new TokenStore(new MemoryStorage() as unknown as Storage);
    if (token) tokens.set(token);
    return new RestClient(tokens);
  };

  it('sends the bearer token when one was given, and none otherwise', async () => {
    answer = () => Response.json([{ groupId: 'g' }]);
    await expect(client('s3cret').get('/v1/groups')).resolves.toEqual([{ groupId: 'g' }]);
    expect((calls[0].init.headers as Record<string, string>).authorization).toBe('Bearer s3cret');
    await client().get('/v1/groups');
    expect((calls[1].init.headers as Record<string, string>).authorization).toBeUndefined();
  });

  it('turns an error body into a RestError named by its Kafka error, and tells listeners of a 401', async () => {
    answer = () =>
      Response.json(
        { statusCode: 401, errorCode: 58, error: 'SASL_AUTHENTICATION_FAILED', message: 'a bearer token is required' },
        { status: 401 },
      );
    const rest = client();
    let told = 0;
    rest.onUnauthorized(() => told++);
    const error = await rest.get('/v1/topics').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RestError);
    expect(error).toMatchObject({ status: 401, errorCode: 58, errorName: 'SASL_AUTHENTICATION_FAILED' });
    expect(describeError(error)).toBe('SASL_AUTHENTICATION_FAILED: a bearer token is required');
    expect(told).toBe(1);
  });

  it("names a body that is not Cohort's by its HTTP status, joins validation messages, and reads a 204 as nothing", async () => {
    answer = () => new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' });
    await expect(client().get('/v1/cluster').catch(describeError)).resolves.toBe('HTTP_502: Bad Gateway');
    answer = () =>
      Response.json(
        {
          statusCode: 400,
          errorCode: 42,
          error: 'INVALID_REQUEST',
          message: ['value must be an integer', 'strategy is required'],
        },
        { status: 400 },
      );
    await expect(client().post('/v1/groups/g/offsets/reset', {}).catch(describeError)).resolves.toBe(
      'INVALID_REQUEST: value must be an integer; strategy is required',
    );
    expect(calls[1].init.body).toBe('{}');
    answer = () => new Response(null, { status: 204 });
    await expect(client().delete('/v1/groups/g')).resolves.toBeUndefined();
    expect(calls[2].init.method).toBe('DELETE');
  });
});
