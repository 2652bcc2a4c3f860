import { auditDetails, dayOf, detailLabel, money, moneyFromCents, moneyFromDecimal, moneyRange, quantity, when } from './format.js';

describe('money', () => {
  it('writes the ISO code first and groups thousands with commas, from integer minor units', () => {
    expect(money(9_870_716)).toBe('ZAR 98,707.16');
    expect(money(1216)).toBe('ZAR 12.16');
    expect(money(0)).toBe('ZAR 0.00');
    expect(money(5)).toBe('ZAR 0.05');
    expect(money(100_000_000)).toBe('ZAR 1,000,000.00');
    expect(money(-125_050)).toBe('ZAR -1,250.50');
    expect(money(1050, 'USD')).toBe('USD 10.50');
  });

  it('is exact beyond the range of a float: DB bigints arrive as strings', () => {
    expect(money('9007199254740993')).toBe('ZAR 90,071,992,547,409.93');
    expect(moneyFromCents(9_223_372_036_854_775_807n)).toBe('ZAR 92,233,720,368,547,758.07');
    expect(money(123_456_789n)).toBe('ZAR 1,234,567.89');
  });

  it('formats the decimal strings of the payout API the same way', () => {
    expect(moneyFromDecimal('98707.16')).toBe('ZAR 98,707.16');
    expect(moneyFromDecimal('12.5')).toBe('ZAR 12.50');
    expect(moneyFromDecimal('1000')).toBe('ZAR 1,000.00');
    expect(moneyFromDecimal('-5.00')).toBe('ZAR -5.00');
    expect(() => moneyFromDecimal('1e3')).toThrow();
  });

  it('writes what a purchase delivers with the currency first, other units after', () => {
    expect(quantity('1000.00', 'ZAR')).toBe('ZAR 1,000.00');
    expect(quantity('500', 'MB')).toBe('500 MB');
    expect(quantity('1.125', 'USD')).toBe('1.125 USD');
  });

  it('writes a method range with the currency on both ends', () => {
    expect(moneyRange(500n, 5_000_000n)).toBe('ZAR 5.00 to ZAR 50,000.00');
  });

  it('refuses what is not a whole number of cents', () => {
    expect(() => money(12.5)).toThrow();
    expect(() => money('12.50')).toThrow();
  });
});

describe('when and dayOf', () => {
  it('writes instants in Johannesburg time, year-month-day and 24-hour clock', () => {
    expect(when(new Date('2026-11-27T12:03:05Z'))).toBe('2026-11-27 14:03:05 SAST');
    expect(when('2026-11-27T22:30:00.000Z')).toBe('2026-11-28 00:30:00 SAST');
    expect(when('2026-01-01T00:00:00+02:00')).toBe('2026-01-01 00:00:00 SAST');
    expect(dayOf('2026-11-27T22:30:00Z')).toBe('2026-11-28');
  });

  it('shows a dash for a moment that has not happened', () => {
    expect(when(null)).toBe('—');
    expect(when(undefined)).toBe('—');
    expect(dayOf(null)).toBe('—');
  });
});

describe('auditDetails', () => {
  const text = (details: Record<string, unknown>, names?: Map<string, string>) => auditDetails(details, names).value.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();

  it('labels keys in words and shows amounts, instants and booleans readably, without JSON', () => {
    const shown = text({
      daily_cap_minor: 123_456_78,
      feeCents: '325',
      expires_at: '2026-11-27T12:00:00.000Z',
      released: true,
      before: { daily_cap_minor: null },
    });
    expect(shown).toBe('daily cap ZAR 123,456.78 fee ZAR 3.25 expires at 2026-11-27 14:00:00 SAST released yes before daily cap —');
    expect(auditDetails({ a: { b: 1 } }).value).not.toMatch(/[{}]|&quot;/);
  });

  it('shows the decimal amounts of the payout API as money', () => {
    expect(text({ total_amount: '2500.00', fee: '3.25', totalFee: '0.5', amount_note: '12.00', items: 3 })).toBe(
      'total amount ZAR 2,500.00 fee ZAR 3.25 total fee ZAR 0.50 amount note 12.00 items 3',
    );
  });

  it('names the ids the page knows, and only in id fields', () => {
    const names = new Map([['10101', 'Vodacom ZA Airtime 10.00 ZAR'], ['5', 'should not appear']]);
    expect(text({ product_id: 10101, productIds: [10101, 7], velocity_count: 5 }, names)).toBe(
      'product id Vodacom ZA Airtime 10.00 ZAR product ids Vodacom ZA Airtime 10.00 ZAR, 7 velocity count 5',
    );
  });

  it('escapes keys and values, and shows a dash for no details', () => {
    const shown = auditDetails({ '<b>key</b>': '<script>alert(1)</script>' }).value;
    expect(shown).not.toContain('<script>');
    expect(shown).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(auditDetails({}).value).toBe('—');
    expect(auditDetails(null).value).toBe('—');
  });

  it('turns keys into words', () => {
    expect(detailLabel('velocity_window_seconds')).toBe('velocity window seconds');
    expect(detailLabel('totalAmountCents')).toBe('total amount');
  });
});
