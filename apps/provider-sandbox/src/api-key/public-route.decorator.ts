import { SetMetadata } from '@nestjs/common';

export const PUBLIC_ROUTE = 'sandbox:public-route';

/** Opts a route out of the API key check (health probes only). */
export const PublicRoute = () => SetMetadata(PUBLIC_ROUTE, true);
