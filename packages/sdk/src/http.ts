/**
 * The few lines of HTTP the SDK needs (no runtime dependency): a path template filled with
 * encoded parameters, a query, headers, a JSON body, and the answer parsed as JSON.
 */

export interface SendParams {
  path?: Record<string, string | number>;
  query?: object;
  header?: Record<string, string>;
}

export interface SendInit {
  params?: SendParams;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  fetch: (input: Request) => Promise<Response>;
}

export interface SendResult<Body> {
  data?: Body;
  error?: unknown;
  response: Response;
}

export class Http {
  constructor(
    private readonly baseUrl: string,
    private readonly headers: Record<string, string>,
  ) {}

  async send<Body>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', template: string, init: SendInit): Promise<SendResult<Body>> {
    const path = template.replace(/\{(\w+)\}/g, (_match, name: string) => {
      const value = init.params?.path?.[name];
      if (value === undefined || value === null || String(value) === '') throw new TypeError(`${name} is required (${method} ${template})`);
      return encodeURIComponent(String(value));
    });
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [key, value] of Object.entries(init.params?.query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.append(key, String(value));
    }
    const headers = new Headers(this.headers);
    headers.set('Accept', 'application/json');
    for (const [key, value] of Object.entries({ ...init.headers, ...init.params?.header })) headers.set(key, value);
    if (init.body !== undefined) headers.set('Content-Type', 'application/json');
    const request = new Request(url, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body), signal: init.signal });
    const response = await init.fetch(request);
    const text = await response.text();
    let parsed: unknown;
    if (text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return response.ok ? { data: parsed as Body, response } : { error: parsed, response };
  }
}
