import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';
import { GatewayEnv } from '#config';

/** One plain-text mail: the web apps' mail is short, a link and a sentence or two. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

/**
 * Outgoing mail over SMTP (nodemailer), configured by MAIL_SMTP_URL and MAIL_FROM. Mail is a
 * courtesy next to the page: a failure to send is logged (never with the mail's text, which holds
 * one-time links) and reported as false, and the page goes on. Without MAIL_SMTP_URL nothing is
 * sent. Timeouts are short so a dead mail server cannot hold a page for long.
 */
@Injectable()
export class Mailer implements OnModuleDestroy {
  private readonly logger = new Logger(Mailer.name);
  private readonly transport: Transporter | null;

  constructor(@Inject(GatewayEnv) private readonly config: GatewayEnv) {
    this.transport = config.MAIL_SMTP_URL
      ? createTransport({ url: config.MAIL_SMTP_URL, connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 10_000 })
      : null;
  }

  /** Whether mail is configured at all (the pages say so instead of promising a mail). */
  get enabled(): boolean {
    return this.transport !== null;
  }

  async send(mail: OutgoingMail): Promise<boolean> {
    if (!this.transport) {
      this.logger.warn(`mail "${mail.subject}" not sent: MAIL_SMTP_URL is not set`);
      return false;
    }
    try {
      await this.transport.sendMail({ from: this.config.MAIL_FROM, to: mail.to, subject: mail.subject, text: mail.text });
      return true;
    } catch (error) {
      this.logger.error(`mail "${mail.subject}" not sent: ${(error as Error).message}`);
      return false;
    }
  }

  onModuleDestroy(): void {
    this.transport?.close();
  }
}
