import { HttpStatus } from '@nestjs/common';
import { codesAsMessages } from './error-catalogue.js';

describe('codesAsMessages', () => {
  it('answers each code with its status and the code as its message, in the order written', () => {
    const catalogue = codesAsMessages({ QUOTE_EXPIRED: HttpStatus.CONFLICT, PRODUCT_UNAVAILABLE: HttpStatus.UNPROCESSABLE_ENTITY });
    const expiredStatus: HttpStatus.CONFLICT = catalogue.QUOTE_EXPIRED.status;
    const unavailableMessage: 'PRODUCT_UNAVAILABLE' = catalogue.PRODUCT_UNAVAILABLE.message;
    expect([expiredStatus, unavailableMessage]).toEqual([409, 'PRODUCT_UNAVAILABLE']);
    expect(Object.entries(catalogue)).toEqual([
      ['QUOTE_EXPIRED', { status: 409, message: 'QUOTE_EXPIRED' }],
      ['PRODUCT_UNAVAILABLE', { status: 422, message: 'PRODUCT_UNAVAILABLE' }],
    ]);
  });
});
