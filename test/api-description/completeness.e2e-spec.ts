import { OpenApiResponseValidator, serverBasePath, type EnvelopeStyle } from '../support/reliability/openapi-validator.js';
import { startPayoutGateway, startPurchaseGateway, type RunningApp } from '../support/apps.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Operations whose success answer may be an idempotent replay. */
const REPLAYABLE: Record<EnvelopeStyle, string[]> = { purchase: ['createTransaction'], payout: ['createPayout', 'createBatch'] };

/** The reversal window an integrator must know, per gateway (issue 17). */
const REVERSAL_WINDOW: Record<EnvelopeStyle, string> = { purchase: '24 h', payout: '2 h' };

/**
 * The checklist a client generator needs (issue 17, part 1), applied to every operation of both
 * documents: a new operation that lacks any item fails the build. Every example is also validated
 * against its own schema, so an example cannot contradict the type it illustrates.
 */
describe.each([
  ['purchase', startPurchaseGateway],
  ['payout', startPayoutGateway],
] as const)('%s gateway API description', (style, start) => {
  let gateway: RunningApp;
  let document: Json;
  let validator: OpenApiResponseValidator;
  const operations: Array<{ key: string; path: string; method: string; operation: Json }> = [];

  beforeAll(async () => {
    gateway = await start();
    validator = await OpenApiResponseValidator.fromApp(gateway.http, style);
    document = validator.document;
    for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
      for (const method of METHODS) if (item[method]) operations.push({ key: `${method.toUpperCase()} ${path}`, path, method, operation: item[method] });
    }
  });
  afterAll(() => gateway?.close());

  /** Runs `check` on every operation and expects no problem anywhere. */
  function everyOperation(check: (entry: (typeof operations)[number]) => string[]): void {
    expect(operations.length).toBeGreaterThan(5);
    expect(operations.flatMap((entry) => check(entry).map((problem) => `${entry.key}: ${problem}`))).toEqual([]);
  }

  it("states its contract's base URL rule: servers[0].url + path is the URL a client calls", () => {
    if (style === 'purchase') {
      // The purchase contract's base address includes the version prefix; paths are relative to it.
      expect(document.servers?.[0]?.url).toMatch(/^https?:\/\/[^/]+\/api\/v1$/);
      expect(Object.keys(document.paths).filter((path) => path.startsWith('/api/'))).toEqual([]);
    } else {
      // The payout contract writes paths with the prefix; the base URL is the origin.
      expect(document.servers?.[0]?.url).toMatch(/^https?:\/\/[^/]+$/);
      expect(Object.keys(document.paths).filter((path) => !path.startsWith('/api/v1/'))).toEqual([]);
    }
  });

  it('describes opaque bearer tokens (not JWT) and the sandbox values, polling cadence and reversal window', () => {
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.components.securitySchemes.bearer.bearerFormat).not.toMatch(/jwt/i);
    expect(document.info.description).toContain('Sandbox values');
    expect(document.info.description).toContain('Polling cadence');
    expect(document.info.description).toContain(REVERSAL_WINDOW[style]);
  });

  it('has clean, unique operation ids, a summary, and described tags', () => {
    const described = new Set((document.tags ?? []).filter((tag: Json) => tag.description).map((tag: Json) => tag.name));
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    everyOperation(({ operation }) => [
      ...(/^[a-z][A-Za-z0-9]*$/.test(operation.operationId ?? '') ? [] : [`operationId ${operation.operationId}`]),
      ...(operation.summary ? [] : ['no summary']),
      ...((operation.tags ?? []).length > 0 ? [] : ['no tag']),
      ...(operation.tags ?? []).filter((tag: string) => !described.has(tag)).map((tag: string) => `tag ${tag} has no description`),
    ]);
  });

  it('uses consistent schema names and integer numbers, and no query default a generator would make required', () => {
    expect(Object.keys(document.components.schemas).filter((name) => /(Schema|Dto|Body)$/.test(name))).toEqual([]);
    const numbers: string[] = [];
    const visit = (node: Json, path: string[]): void => {
      if (typeof node !== 'object' || node === null) return;
      if (node.type === 'number' && !path.includes('metadata')) numbers.push(path.join('/'));
      for (const [key, value] of Object.entries(node)) if (key !== 'example' && key !== 'examples') visit(value, [...path, key]);
    };
    visit(document, []);
    expect(numbers).toEqual([]);
    everyOperation(({ operation }) =>
      (operation.parameters ?? []).filter((parameter: Json) => parameter.schema?.default !== undefined).map((parameter: Json) => `parameter ${parameter.name} has a default`),
    );
  });

  it('gives every request body an example that matches its schema', () => {
    everyOperation(({ key, operation }) => {
      const media = operation.requestBody?.content?.['application/json'];
      if (!operation.requestBody) return [];
      if (!media?.schema) return ['request body without a JSON schema'];
      const examples = media.example !== undefined ? [media.example] : Object.values(media.examples ?? {}).map((example: Json) => example.value);
      if (examples.length === 0) return ['request body without an example'];
      return examples.flatMap((example) => [
        ...validator.schemaProblems(`${key} request`, media.schema, example),
        ...(JSON.stringify(example).includes('"string"') ? [`request example has a "string" placeholder: ${JSON.stringify(example).slice(0, 300)}`] : []),
      ]);
    });
  });

  it('declares 401, 403, 429, 500 and 503 on every authenticated operation', () => {
    everyOperation(({ operation }) =>
      (operation.security ?? []).length === 0 ? [] : ['401', '403', '429', '500', '503'].filter((status) => !operation.responses[status]).map((status) => `${status} not declared`),
    );
  });

  it('gives every response status a schema and an example in its envelope, and every error status its codes as an enum with one example each', () => {
    everyOperation(({ method, path, operation }) => {
      const problems: string[] = [];
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        const csv = response.content?.['text/csv'];
        // A CSV export answers a file, not the envelope: a string schema and its header line as the example.
        if (Number(status) === 200 && csv) {
          if (csv.schema?.type !== 'string' || typeof csv.example !== 'string' || !csv.example.endsWith('\r\n')) problems.push(`${status}: text/csv without a string schema and a header-line example`);
          continue;
        }
        const media = response.content?.['application/json'];
        if (!media?.schema) {
          problems.push(`${status} without a schema`);
          continue;
        }
        if (Number(status) < 400 && !(media.schema.required ?? []).includes('success')) problems.push(`${status}: envelope without required members`);
        const examples: Array<[string, Json]> = media.example !== undefined ? [['example', media.example]] : Object.entries(media.examples ?? {}).map(([name, example]: [string, Json]) => [name, example.value]);
        if (examples.length === 0) problems.push(`${status} without an example`);
        // The example is what the gateway would answer: the same validation as a live answer.
        // The URL path the client calls: servers[0].url's path (purchase: /api/v1) + the path.
        const concrete = serverBasePath(document) + path.replace(/\{[^}]+\}/g, 'x');
        for (const [, example] of examples) {
          // The live check refuses any real 500; the declared 500 only has to be the error envelope.
          problems.push(...validator.check({ method, path: concrete, status: Number(status), body: example }).filter((problem) => !problem.endsWith('500: a server error')));
          // A typed placeholder instead of a sandbox value teaches a developer nothing.
          if (JSON.stringify(example).includes('"string"')) problems.push(`${status}: example has a "string" placeholder: ${JSON.stringify(example).slice(0, 300)}`);
        }
        if (Number(status) >= 400) {
          const codes = errorCodesOf(style, media.schema);
          if (!codes?.length) problems.push(`${status}: error codes are not an enum`);
          else if (examples.map(([name]) => name).sort().join() !== [...codes].sort().join()) problems.push(`${status}: examples ${examples.map(([name]) => name)} do not cover codes ${codes}`);
        }
      }
      return problems;
    });
  });

  it('declares the headers the gateway sends', () => {
    everyOperation(({ operation }) => {
      const problems: string[] = [];
      const authenticated = (operation.security ?? []).length > 0;
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        const headers = Object.keys(response.headers ?? {});
        const expected = ['X-Request-Id', 'Cache-Control'];
        if (authenticated && Number(status) < 300) expected.push('X-RateLimit-Limit', 'X-RateLimit-Remaining');
        if (status === '429' || status === '503') expected.push('Retry-After');
        if (Number(status) < 300 && REPLAYABLE[style].includes(operation.operationId)) expected.push('Idempotent-Replayed');
        problems.push(...expected.filter((header) => !headers.includes(header)).map((header) => `${status} does not declare ${header}`));
      }
      return problems;
    });
  });
});

describe('purchase gateway API description: the types the issue names', () => {
  let gateway: RunningApp;
  let document: Json;

  beforeAll(async () => {
    gateway = await startPurchaseGateway();
    document = (await gateway.http().get('/docs-json').expect(200)).body;
  });
  afterAll(() => gateway?.close());

  it('types the quote body as fixed | ranged by amount | ranged by budget, mutually exclusive', () => {
    const schema = document.paths['/quotes'].post.requestBody.content['application/json'].schema;
    expect(schema.oneOf.map((shape: Json) => [shape.title, shape.required, shape.additionalProperties])).toEqual([
      ['FixedQuoteRequest', ['product_id'], false],
      ['RangedAmountQuoteRequest', ['product_id', 'destination_amount'], false],
      ['RangedBudgetQuoteRequest', ['product_id', 'budget_minor'], false],
    ]);
  });

  it('declares the extra members errors carry, and enums for lookups and benefits', () => {
    const schemas = document.components.schemas;
    expect(schemas.ErrorDetail.properties.minimum_charge_minor).toMatchObject({ type: 'integer' });
    expect(schemas.ErrorDetail.properties.remaining_minor).toMatchObject({ type: 'integer' });
    expect(schemas.EsimStatusLookup.properties.status.enum).toEqual(['INSTALLED', 'NOT_INSTALLED']);
    expect(schemas.Benefit.properties.type.enum).toEqual(expect.arrayContaining(['CREDITS', 'DATA']));
    expect(schemas.Product.properties.lookups.items.enum).toEqual(['statement', 'account', 'esim-benefits', 'esim-status']);
  });
});

describe('payout gateway API description: the types the issue names', () => {
  it('enumerates status_reason', async () => {
    const gateway = await startPayoutGateway();
    try {
      const document = (await gateway.http().get('/docs-json').expect(200)).body;
      expect(document.components.schemas.Payout.properties.status_reason.enum).toEqual(expect.arrayContaining(['provider_rejected', 'not_received_by_provider', 'outcome_unknown']));
    } finally {
      await gateway.close();
    }
  });
});

/** The code enum of an error response, where each envelope carries it. */
function errorCodesOf(style: EnvelopeStyle, schema: Json): string[] | undefined {
  for (const part of schema.allOf ?? [schema]) {
    // Purchase: `error` is ErrorDetail narrowed by an allOf part that lists the codes.
    const error = part.properties?.error;
    const codes = style === 'purchase' ? [error, ...(error?.allOf ?? [])].map((member: Json) => member?.properties?.code?.enum).find(Boolean) : part.properties?.code?.enum;
    if (codes) return codes;
  }
  return undefined;
}
