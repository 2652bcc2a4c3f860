// A local mail sink for development and tests, never for production: an SMTP server (smtp-server)
// that accepts every message without authentication, keeps the latest 200 in memory, prints each to
// the console, and serves them over HTTP: GET / (a page to read them), GET /messages (JSON, newest
// last), DELETE /messages (forget them). `npm run stack` starts it; the tests read the mails from it.
// Run alone: node scripts/mail-catcher/mail-catcher.mjs [smtpPort=1025] [httpPort=1080]
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

const KEPT = 200;

const escapeHtml = (value) => String(value).replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** Starts the sink on 127.0.0.1; port 0 picks a free one. */
export async function startMailCatcher({ smtpPort = 1025, httpPort = 1080, quiet = false } = {}) {
  const messages = [];
  let received = 0;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    banner: 'local mail catcher',
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const message = {
            id: ++received,
            receivedAt: new Date().toISOString(),
            envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
            envelopeTo: session.envelope.rcptTo.map((recipient) => recipient.address),
            from: parsed.from ? parsed.from.text : null,
            to: parsed.to ? [].concat(parsed.to).map((address) => address.text).join(', ') : null,
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : null,
          };
          messages.push(message);
          if (messages.length > KEPT) messages.shift();
          if (!quiet) process.stdout.write(`mail #${message.id} to ${message.envelopeTo.join(', ')}: ${message.subject}\n${message.text.trim()}\n\n`);
          callback();
        })
        .catch(callback);
    },
  });
  const http = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === '/messages' && request.method === 'DELETE') {
      messages.length = 0;
      response.writeHead(204).end();
    } else if (url.pathname === '/messages') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(messages));
    } else if (url.pathname === '/') {
      const items = [...messages]
        .reverse()
        .map((message) => `<article><h2>${escapeHtml(message.subject)}</h2><p>To ${escapeHtml(message.envelopeTo.join(', '))} · ${escapeHtml(message.receivedAt)}</p><pre>${escapeHtml(message.text)}</pre></article>`)
        .join('');
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><html lang="en"><meta charset="utf-8"><title>Mail catcher</title><style>body{font:16px system-ui;margin:24px;max-width:800px}pre{white-space:pre-wrap;background:#f5f7fa;padding:8px}</style><h1>Mail caught (${messages.length})</h1>${items || '<p>No mail yet.</p>'}</html>`);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise((resolve, reject) => smtp.listen(smtpPort, '127.0.0.1', resolve).once('error', reject));
  await new Promise((resolve, reject) => http.listen(httpPort, '127.0.0.1', resolve).once('error', reject));
  const boundSmtp = smtp.server.address().port;
  const boundHttp = http.address().port;
  return {
    smtpPort: boundSmtp,
    httpPort: boundHttp,
    smtpUrl: `smtp://127.0.0.1:${boundSmtp}`,
    httpUrl: `http://127.0.0.1:${boundHttp}`,
    messages: () => [...messages],
    close: async () => {
      await new Promise((resolve) => smtp.close(resolve));
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [smtpPort = '1025', httpPort = '1080'] = process.argv.slice(2);
  const catcher = await startMailCatcher({ smtpPort: Number(smtpPort), httpPort: Number(httpPort) });
  process.stdout.write(`mail catcher: SMTP ${catcher.smtpUrl}, read the mail at ${catcher.httpUrl}\n`);
  const stop = () => catcher.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
