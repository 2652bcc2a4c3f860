/** Spend limits as staff set them; money in ZAR minor units (cents). */
export interface SpendLimits {
  dailyCapMinor: number;
  transactionMaxMinor: number;
  velocityCount: number;
  velocityWindowSeconds: number;
}
