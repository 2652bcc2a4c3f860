import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { TokenService, type AuthenticatedToken } from '../tokens/token.service.js';

@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly tokens: TokenService) {
    super();
  }

  async validate(secret: string): Promise<AuthenticatedToken | false> {
    return (await this.tokens.authenticate(secret)) ?? false;
  }
}
