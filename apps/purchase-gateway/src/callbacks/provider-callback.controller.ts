import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '#auth';
import { NotFoundError } from '#common';
import { PurchaseCallbackService } from '#purchase';

/**
 * The provider's callback: authenticated only by the secret last path segment. A wrong token
 * answers exactly like an unknown route (404, no hint) and schedules nothing. Not part of the
 * vendor API, so it stays out of the OpenAPI document. Request logs redact the path.
 */
@ApiExcludeController()
@Controller('provider/callback')
export class ProviderCallbackController {
  constructor(private readonly callbacks: PurchaseCallbackService) {}

  @Post(':token')
  @HttpCode(200)
  @Public()
  receive(@Param('token') token: string, @Body() body: unknown) {
    if (!this.callbacks.accepts(token)) throw new NotFoundError('route');
    return this.callbacks.receive(body);
  }
}
