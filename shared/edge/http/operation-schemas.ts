import type { Operation, OperationRequest } from '../api/operation';

/** The schema an operation declares under `K`: what its function makes, which the types read without making it. */
type Declared<R, K extends keyof OperationRequest> = R extends { [P in K]: () => infer T } ? T : undefined;

/** The request schemas an operation of the catalogue declares, as the chain's `RouteSchemas`. */
export type SchemasOf<O extends Operation> = {
  path: Declared<O['request'], 'path'>;
  query: Declared<O['request'], 'query'>;
  body: Declared<O['request'], 'body'>;
};
