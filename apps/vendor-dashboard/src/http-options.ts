import type { HttpAppOptions } from '#common';

/** Pages and forms at the root; the CSV upload is the largest body (multer limits it separately). */
export const DASHBOARD_HTTP_OPTIONS: HttpAppOptions = {
  bodyLimit: '256kb',
  forms: true,
};
