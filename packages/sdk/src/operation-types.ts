/** Types read off the generated `operations` of a gateway: bodies, queries, error codes per operation. */

type JsonBody<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type SuccessStatus = 200 | 201 | 202 | 204;

/** The JSON bodies of an operation's error answers (every status but 2xx). */
export type ErrorBodies<O> = O extends { responses: infer Rs } ? { [S in keyof Rs]: S extends SuccessStatus ? never : JsonBody<Rs[S]> }[keyof Rs] : never;

/** Purchase envelope `{ error: { code } }`: the union of codes an operation can answer. */
export type PurchaseCodeOf<B> = B extends { error: { code: infer C } } ? (C extends string ? C : never) : never;
/** Payout envelope `{ code }`: the union of codes an operation can answer. */
export type PayoutCodeOf<B> = B extends { code: infer C } ? (C extends string ? C : never) : never;

/** The JSON request body of an operation. */
export type BodyOf<O> = O extends { requestBody?: infer R } ? JsonBody<NonNullable<R>> : never;
/** The query parameters of an operation (without paging for the auto-paginated lists). */
export type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The JSON body of an operation's success answer (2xx). */
export type SuccessBody<O> = O extends { responses: infer Rs } ? { [S in keyof Rs]: S extends SuccessStatus ? JsonBody<Rs[S]> : never }[keyof Rs] : never;
/** The envelope's `data` of an operation's success answer. */
export type DataOf<O> = SuccessBody<O> extends { data: infer D } ? D : never;
/** The path parameters of an operation. */
export type PathOf<O> = O extends { parameters: { path: infer P } } ? P : never;
