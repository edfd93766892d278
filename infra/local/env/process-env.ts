import type { ResourceGroup } from '../../../shared/edge/api/routes';
import { envNames } from '../../../shared/kernel/config';
import { currentFunction } from '../kernel/function-context';

/**
 * Each function sees only its own environment, as in Lambda, although every function runs in this one
 * process: `process.env` becomes a getter answering the running function's environment object
 * (`function-context.ts` knows which function runs) and the process's own outside any function. Node
 * reads the property too, so a child process a function starts inherits that function's environment.
 */

const productVariables: ReadonlySet<string> = new Set(Object.values(envNames));

/** A function's environment object: a read (`env.X`, `'X' in env`) of a product variable its template does not declare is reported. */
export function functionEnvironment(group: ResourceGroup, values: Readonly<Record<string, string>>, declared: ReadonlySet<string>, onUndeclared: (group: ResourceGroup, variable: string) => void): NodeJS.ProcessEnv {
  const watch = (name: string | symbol) => {
    if (typeof name === 'string' && productVariables.has(name) && !declared.has(name)) onUndeclared(group, name);
  };
  return new Proxy<NodeJS.ProcessEnv>(
    { ...values },
    {
      get: (target, name) => (watch(name), Reflect.get(target, name)),
      has: (target, name) => (watch(name), Reflect.has(target, name)),
      set: (target, name, value) => Reflect.set(target, name, String(value)),
    },
  );
}

/** Makes `process.env` answer the running function's environment (else the process's own); returns what puts it back. */
export function useFunctionEnvironments(environments: ReadonlyMap<ResourceGroup, NodeJS.ProcessEnv>): () => void {
  const original = Object.getOwnPropertyDescriptor(process, 'env')!;
  let base = process.env;
  Object.defineProperty(process, 'env', {
    configurable: true,
    enumerable: true,
    get: () => {
      const group = currentFunction();
      return (group && environments.get(group)) || base;
    },
    set: (value: NodeJS.ProcessEnv) => void (base = value),
  });
  return () => Object.defineProperty(process, 'env', { ...original, value: base });
}
