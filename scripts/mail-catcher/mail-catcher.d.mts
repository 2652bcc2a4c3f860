export interface CaughtMail {
  id: number;
  receivedAt: string;
  envelopeFrom: string | null;
  envelopeTo: string[];
  from: string | null;
  to: string | null;
  subject: string;
  text: string;
  html: string | null;
}

export interface MailCatcher {
  smtpPort: number;
  httpPort: number;
  smtpUrl: string;
  httpUrl: string;
  messages(): CaughtMail[];
  close(): Promise<void>;
}

export function startMailCatcher(options?: { smtpPort?: number; httpPort?: number; quiet?: boolean }): Promise<MailCatcher>;
