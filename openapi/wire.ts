// The request and the answer of an operation by its name, read off the generated types: what the
// dashboard and the CLI call the API with. Types only; nothing here runs.
import type { paths } from './types.js';

/** Operations served as `POST /v1/<name>` with a JSON body. */
export type OperationName = {
  [P in keyof paths]: P extends `/v1/${infer N}` ? (paths[P] extends { post: object } ? N : never) : never;
}[keyof paths];

type PostOf<N extends OperationName> = paths[`/v1/${N}`] extends { post: infer O } ? O : never;

/** The JSON body operation `N` takes. */
export type RequestOf<N extends OperationName> = PostOf<N> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** The JSON answer of operation `N` when it succeeds (200). */
export type AnswerOf<N extends OperationName> = PostOf<N> extends { responses: { 200: { content: { 'application/json': infer R } } } } ? R : never;
