import type { HttpAppOptions } from '#common';

/** Pages and small forms at the root (reasons and notes are the largest fields). */
export const BACK_OFFICE_HTTP_OPTIONS: HttpAppOptions = {
  bodyLimit: '64kb',
  forms: true,
  // Every path of this port faces people's browsers: health and metrics answer on their own port.
  operationalPortOnly: true,
};
