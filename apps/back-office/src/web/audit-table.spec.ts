import type { StaffAuditRecord } from '#staff';
import { auditTable } from './audit-table.js';

const record = (details: Record<string, unknown>): StaffAuditRecord => ({
  id: '1',
  createdAt: new Date('2026-11-24T10:00:00Z'),
  actor: 'operator@staff.example',
  action: 'limits.set',
  subjectType: 'vendor',
  subjectId: 'v-1',
  vendorId: 'v-1',
  reason: 'Vendor onboarding ticket 1',
  proposalId: null,
  approvedBy: null,
  details,
  address: null,
});

/** The Details cell of a one-record table. */
const detailsCell = (details: Record<string, unknown>) => /<td>(<div class="detail">[\s\S]*)<\/td><\/tr>/.exec(auditTable([record(details)]).value)![1];

describe('auditTable details', () => {
  it('shows nested before/after as key/value lines and amounts in cents as ZAR, without JSON', () => {
    const cell = detailsCell({
      before: { daily_cap_minor: null, velocity_count: null },
      after: { daily_cap_minor: 123_456, velocity_count: 5 },
      amount_cents: '75000',
      feeCents: '325',
      released: true,
    });
    expect(cell).toContain('<span class="hint">daily cap</span> ZAR 1,234.56');
    expect(cell).toContain('<span class="hint">velocity count</span> 5');
    expect(cell).toContain('<span class="hint">amount</span> ZAR 750.00');
    expect(cell).toContain('<span class="hint">fee</span> ZAR 3.25');
    expect(cell).toContain('<span class="hint">released</span> yes');
    expect(cell).toContain('<span class="hint">before</span> <div class="detail"><span class="hint">daily cap</span> —</div>');
    expect(cell).not.toMatch(/[{}]|&quot;|"daily_cap_minor"/);
  });

  it('lists values with commas, objects item by item, and per-method fees as ZAR', () => {
    const cell = detailsCell({
      enabled_abilities: ['purchases:create', 'limits:read'],
      methods: [{ method: 'rtc_eft', fee_cents: '325', enabled: false }],
      requested: { fees: { rtc_eft: '325', cash_send: null }, disable: [] },
    });
    expect(cell).toContain('<span class="hint">enabled abilities</span> purchases:create, limits:read');
    expect(cell).toContain('<ul class="detail-items"><li><div class="detail"><span class="hint">method</span> rtc_eft</div><div class="detail"><span class="hint">fee</span> ZAR 3.25</div>');
    expect(cell).toContain('<span class="hint">rtc eft</span> ZAR 3.25</div><div class="detail"><span class="hint">cash send</span> —');
    expect(cell).toContain('<span class="hint">disable</span> —');
    expect(cell).not.toMatch(/[{}[\]]/);
  });

  it('escapes keys and values', () => {
    const cell = detailsCell({ '<b>key</b>': '<script>alert(1)</script>', nested: { note: '"quoted" & <i>' } });
    expect(cell).not.toContain('<script>');
    expect(cell).not.toContain('<b>');
    expect(cell).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(cell).toContain('&lt;b&gt;key&lt;/b&gt;');
    expect(cell).toContain('&quot;quoted&quot; &amp; &lt;i&gt;');
  });

  it('a record without details shows a dash', () => {
    expect(auditTable([record({})]).value).toContain('<td>—</td></tr>');
  });
});

describe('auditTable subjects', () => {
  it('names a subject the page knows instead of showing its id', () => {
    const table = auditTable([record({})], 'Audit trail', new Map([['v-1', 'Acme Airtime']])).value;
    expect(table).toContain('<td>vendor Acme Airtime</td>');
    expect(auditTable([record({})]).value).toContain('<td>vendor <code>v-1</code></td>');
  });
});
