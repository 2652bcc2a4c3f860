import { Controller, Get, Header } from '@nestjs/common';
import { PAGE_CSS, PAGE_SCRIPT, PublicPage } from '#web';

@Controller('assets')
@PublicPage()
export class AssetsController {
  @Get('dashboard.css')
  @Header('Content-Type', 'text/css; charset=utf-8')
  css(): string {
    return PAGE_CSS;
  }

  @Get('dashboard.js')
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  js(): string {
    return PAGE_SCRIPT;
  }
}
