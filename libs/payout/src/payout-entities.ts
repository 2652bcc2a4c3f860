/**
 * The payout domain registers no TypeORM entity: its tables (payouts, payout_batches,
 * payout_accounts, ledger_entries, payout_vendor_methods, payout_provider_contacts,
 * payout_delivery_reads, payout_sms_resends) are defined by the migrations and read and written
 * only by the repositories in persistence/, whose SQL (CTEs, guarded updates, set-based inserts)
 * TypeORM's entity API cannot express. Each table's column list and row type is written once, in
 * its repository; entity classes here would be a second, unused description. The list stays so
 * the data source's entity registration keeps one entry per domain.
 */
export const PAYOUT_ENTITIES: ReadonlyArray<new () => object> = [];
