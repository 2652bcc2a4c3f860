import { Controller, Get, Header, type Type } from '@nestjs/common';
import { PAGE_SCRIPT } from './assets.js';
import { PublicPage } from './page-guard.js';

/**
 * GET /assets/{name}.css and /assets/{name}.js of a signed-in app, public since the sign-in page
 * needs them too: each app names its files (`dashboard`, `back-office`) and brings its styles.
 */
export function assetsController(name: string, styles: string): Type<unknown> {
  @Controller('assets')
  @PublicPage()
  class AssetsController {
    @Get(`${name}.css`)
    @Header('Content-Type', 'text/css; charset=utf-8')
    css(): string {
      return styles;
    }

    @Get(`${name}.js`)
    @Header('Content-Type', 'text/javascript; charset=utf-8')
    js(): string {
      return PAGE_SCRIPT;
    }
  }
  return AssetsController;
}
