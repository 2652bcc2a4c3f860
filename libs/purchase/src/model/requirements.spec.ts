import type { ProductRequirements } from './catalogue-types.js';
import { unmetRequirements } from './requirements.js';

const none = { credit_party_identifier: [], debit_party_identifier: [], sender: [], beneficiary: [], statement_identifier: [], additional_identifier: [] };

describe('unmetRequirements', () => {
  const mobile: ProductRequirements = { ...none, credit_party_identifier: [['mobile_number']] };
  const either: ProductRequirements = { ...none, credit_party_identifier: [['mobile_number'], ['account_number']] };
  const sender: ProductRequirements = { ...none, sender: [['first_name', 'last_name']] };

  it('accepts a complete field set', () => {
    expect(unmetRequirements(mobile, { credit_party_identifier: { mobile_number: '27821234567' } })).toEqual({});
    expect(unmetRequirements(either, { credit_party_identifier: { account_number: '8927000' } })).toEqual({});
  });

  it('names each missing field of a single set', () => {
    expect(unmetRequirements(sender, { sender: { first_name: 'Thandi' } })).toEqual({ 'sender.last_name': ['is required by this product'] });
    expect(unmetRequirements(mobile, {})).toEqual({ 'credit_party_identifier.mobile_number': ['is required by this product'] });
  });

  it('lists the alternatives when none is complete', () => {
    expect(unmetRequirements(either, { credit_party_identifier: { mobile_number: ' ' } })).toEqual({
      credit_party_identifier: ['must hold one of these field sets: mobile_number | account_number'],
    });
  });

  it('needs nothing for groups without requirements', () => {
    expect(unmetRequirements(none, {})).toEqual({});
  });
});
