import type { HttpAppOptions } from '#common';

/**
 * Pages and forms at the root. The largest form body is a checked CSV batch posted back for
 * submission: a 512 KiB file (multer's limit on the upload) grows up to about threefold when
 * URL-encoded.
 */
export const DASHBOARD_HTTP_OPTIONS: HttpAppOptions = {
  bodyLimit: '2mb',
  forms: true,
  // Every path of this port faces people's browsers: health and metrics answer on their own port.
  operationalPortOnly: true,
};
