import { batchFromCsv, parseCsv } from './csv.js';

describe('dashboard CSV', () => {
  it('parses quoted fields with commas, quotes and line breaks, CRLF and a BOM', () => {
    expect(parseCsv('\uFEFFa,b\r\n"x, y","say ""hi""\nthere"\r\n\r\n')).toEqual([
      ['a', 'b'],
      ['x, y', 'say "hi"\nthere'],
    ]);
  });

  it('maps rows to the POST /batches item shape, leaving empty cells out and nesting bank columns', () => {
    const csv = [
      'reference,amount,method,first_name,surname,phone,id_type,id_number,country_of_issue,nationality,bank_name,account_number,account_name,branch_code,email',
      'r-1,200.00,rtc_eft,Thandi,Mokoena,27821234555,RSAID,8001015009087,ZA,ZA,Bank C,6200123455,T Mokoena,250655,',
    ].join('\n');
    expect(batchFromCsv(csv)).toEqual({
      fileErrors: [],
      payouts: [
        {
          reference: 'r-1',
          amount: '200.00',
          currency: 'ZAR',
          method: 'rtc_eft',
          recipient: {
            first_name: 'Thandi',
            surname: 'Mokoena',
            phone: '27821234555',
            id_type: 'RSAID',
            id_number: '8001015009087',
            country_of_issue: 'ZA',
            nationality: 'ZA',
            bank_account: { bank_name: 'Bank C', account_number: '6200123455', account_name: 'T Mokoena', branch_code: '250655' },
          },
        },
      ],
    });
  });

  it('refuses unknown, missing and repeated columns before reading rows', () => {
    expect(batchFromCsv('reference,amount,colour\nx,1,red').fileErrors.join(' ')).toMatch(/Unknown columns: colour.*Missing columns: method/s);
    expect(batchFromCsv('').fileErrors).toEqual(['The file is empty.']);
  });
});
