import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Receipt {
  headers: IncomingHttpHeaders;
  body: string;
  event: { id: string; type: string; created_at: string; data: Record<string, unknown> };
  answered: number | 'hung';
}

/**
 * A vendor's webhook receiver on 127.0.0.1 (allowed outside production). `respond` decides each
 * answer from the request's position: a status, or 'hang' to hold the response open.
 */
export interface WebhookReceiver {
  url: string;
  receipts: Receipt[];
  respond: (index: number, receipt: Receipt) => number | 'hang';
  ofType: (type: string) => Receipt[];
  close: () => Promise<void>;
}

export async function startReceiver(respond: (index: number, receipt: Receipt) => number | 'hang' = () => 200): Promise<WebhookReceiver> {
  const receipts: Receipt[] = [];
  const receiver: WebhookReceiver = {
    url: '',
    receipts,
    respond,
    ofType: (type) => receipts.filter((receipt) => receipt.event.type === type),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const receipt: Receipt = { headers: request.headers, body, event: JSON.parse(body), answered: 200 };
      const answer = receiver.respond(receipts.length, receipt);
      receipt.answered = answer === 'hang' ? 'hung' : answer;
      receipts.push(receipt);
      if (answer === 'hang') return;
      response.writeHead(answer, { 'Content-Type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

/** Webhook settings short enough for tests (the defaults retry over ~77 hours). */
export const FAST_WEBHOOKS: Record<string, string> = {
  WEBHOOK_RETRY_BASE_MS: '200',
  WEBHOOK_RETRY_MAX_DELAY_MS: '800',
  WEBHOOK_MAX_ATTEMPTS: '6',
  WEBHOOK_CONNECT_TIMEOUT_MS: '1000',
  WEBHOOK_RESPONSE_TIMEOUT_MS: '3000',
  WEBHOOK_SWEEP_INTERVAL_MS: '1000',
};
