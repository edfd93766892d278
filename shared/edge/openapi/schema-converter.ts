import * as z from 'zod/mini';
import { schemaRegistry } from '../../kernel/schemas/registry';

/** zod to JSON Schema for the document: named schemas collected once under `components.schemas`. */

export type Json = Record<string, unknown>;

export const schemaRef = (id: string) => ({ $ref: `#/components/schemas/${id}` });

interface ZodInternals {
  type: string;
  innerType?: z.ZodMiniType;
  in?: z.ZodMiniType;
  out?: z.ZodMiniType;
  shape?: Record<string, z.ZodMiniType>;
}
export const defOf = (schema: z.ZodMiniType) => (schema as unknown as { _zod: { def: ZodInternals } })._zod.def;

export function objectShape(schema: z.ZodMiniType | undefined): Record<string, z.ZodMiniType> {
  return schema && defOf(schema).type === 'object' ? (defOf(schema).shape ?? {}) : {};
}

/**
 * The schema a parameter's value must meet, without the transforms around it: `queryInt`'s number
 * range rather than its string, the enum a case-folding pipe checks.
 */
function checkedSchema(schema: z.ZodMiniType): z.ZodMiniType {
  const def = defOf(schema);
  if ((def.type === 'optional' || def.type === 'nullable' || def.type === 'default') && def.innerType) return checkedSchema(def.innerType);
  if (def.type === 'pipe' && def.in && def.out) return defOf(def.out).type === 'transform' ? checkedSchema(def.in) : checkedSchema(def.out);
  return schema;
}

/** zod to JSON Schema, named response schemas collected once under `components.schemas`. */
export class SchemaConverter {
  private readonly named: Record<string, Json>;
  private readonly ids = new Map<unknown, string>();

  constructor() {
    const registry = z.registry<{ id: string }>();
    for (const [id, schema] of schemaRegistry._idmap) {
      registry.add(schema, { id });
      this.ids.set(schema, id);
    }
    const converted = z.toJSONSchema(registry, { io: 'output', unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` });
    this.named = Object.fromEntries(Object.entries(converted.schemas).map(([id, schema]) => [id, clean(schema as Json)]));
    this.registry = registry;
  }

  private readonly registry: z.core.$ZodRegistry<{ id: string }>;

  components(): Record<string, Json> {
    return Object.fromEntries(Object.entries(this.named).sort(([a], [b]) => a.localeCompare(b)));
  }

  response(schema: z.ZodMiniType): Json {
    const id = this.ids.get(schema);
    return id ? schemaRef(id) : this.inline(schema, 'output');
  }

  request(schema: z.ZodMiniType): Json {
    return this.inline(schema, 'input');
  }

  parameter(schema: z.ZodMiniType): Json {
    return this.inline(checkedSchema(schema), 'output');
  }

  private inline(schema: z.ZodMiniType, io: 'input' | 'output'): Json {
    const converted = z.toJSONSchema(schema, { io, unrepresentable: 'any', metadata: this.registry }) as Json;
    const defs = (converted.$defs ?? {}) as Record<string, Json>;
    delete converted.$defs;
    for (const [id, def] of Object.entries(defs)) this.named[id] ??= clean(def);
    return clean(converted);
  }
}

/** Drops what a JSON Schema document has and an OpenAPI schema object must not, and points refs at components. */
function clean(schema: Json): Json {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return JSON.parse(JSON.stringify(rest).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
}
