import { exampleOf } from './openapi-examples.js';
import type { Json } from './openapi-schema-passes.js';

/** Per event type a gateway POSTs to vendors: when it is sent and the component schema of its `data` (after renaming). */
export type OpenApiWebhooks = Record<string, { summary: string; data: string }>;

const SIGNATURE_PARAMETERS = [
  {
    name: 'Gateway-Signature',
    in: 'header',
    required: true,
    description:
      '`t=<unix seconds>,v1=<hex>[,v1=<hex>]`: each `v1` is HMAC-SHA256 in hex, keyed with an endpoint secret in force, over `<t>.<raw body>` (two during a rotation overlap). ' +
      'Verify against the raw body, compare in constant time and refuse a `t` older than your tolerance (the SDK: `constructEvent`).',
    schema: { type: 'string', pattern: '^t=[0-9]+(,v1=[0-9a-f]{64}){1,2}$' },
    example: 't=1795939200,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
  },
  { name: 'Gateway-Event-Id', in: 'header', required: true, description: 'The event id (the body\'s `id`): deduplicate on it, an event can arrive more than once', schema: { type: 'string', format: 'uuid' } },
  { name: 'Gateway-Event-Type', in: 'header', required: true, description: "The event type (the body's `type`)", schema: { type: 'string' } },
  { name: 'Gateway-Delivery-Id', in: 'header', required: true, description: 'This delivery in the endpoint\'s delivery log (`GET /webhook-endpoints/{id}/deliveries`)', schema: { type: 'string', format: 'uuid' } },
];

/**
 * OpenAPI 3.1 `webhooks`: one POST per event type, its body `{id, type, created_at, data}` as a
 * component schema (`<Type>Event`), its signature and headers, and what the receiver answers.
 */
export function describeWebhooks(doc: Json, webhooks: OpenApiWebhooks): void {
  doc.webhooks = {};
  for (const [type, event] of Object.entries(webhooks)) {
    if (!doc.components.schemas[event.data]) throw new Error(`OpenAPI: webhook ${type} names an unknown schema ${event.data}`);
    const name = `${type.replace(/(^|[._])([a-z])/g, (_match, _separator, letter: string) => letter.toUpperCase())}Event`;
    const dataExample = exampleOf(doc, { $ref: `#/components/schemas/${event.data}` }, 'response');
    doc.components.schemas[name] = {
      type: 'object',
      description: `The body of a \`${type}\` delivery: ${event.summary}`,
      required: ['id', 'type', 'created_at', 'data'],
      properties: {
        id: { type: 'string', format: 'uuid', description: 'The event id, the same on every attempt and redelivery: deduplicate on it' },
        type: { type: 'string', enum: [type] },
        created_at: { type: 'string', format: 'date-time', description: 'When the change the event reports was committed' },
        data: { $ref: `#/components/schemas/${event.data}` },
      },
      example: { id: '6c1f0e0a-3b5d-4c39-9a0e-2f8d4e1b7c55', type, created_at: '2026-11-24T08:00:00.000Z', data: dataExample },
    };
    doc.webhooks[type] = {
      post: {
        operationId: `${name.charAt(0).toLowerCase()}${name.slice(1)}`,
        summary: event.summary,
        description:
          'A hint to GET the resource (the GET is the truth): events arrive at least once, possibly late or out of order. Answer any 2xx within 10 s; ' +
          'anything else (another status, a redirect, a timeout) is a failed attempt, retried with backoff for at least 72 hours. The body is the same bytes on every attempt.',
        tags: ['webhooks'],
        security: [],
        parameters: SIGNATURE_PARAMETERS,
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } },
        responses: {
          '200': { description: 'Any 2xx acknowledges the delivery (its body is ignored)' },
          '400': { description: 'Any other answer (for example a signature your receiver refused) is a failed attempt and is retried' },
        },
      },
    };
  }
}
