import * as z from 'zod/mini';
import '../../kernel/schemas/zod-messages';
import { agentFields } from '../../domain/agents/agent.fields';
import { agentSchemas, optional } from '../../domain/agents/agent.schemas';
import { shapeOf } from '../../kernel/schemas/declared-fields';
import { lazy } from '../../kernel/lazy';
import { fold } from '../../kernel/text/matching';

/**
 * A bundle: a bot's whole configuration, its supervisors and agents with every reference to the bot's
 * own resources by name (docs/api/bundles.md). Strict like every body: an unknown field is a 422.
 */

/** The one format this API writes and reads; a bundle of another is refused (400) before validation. */
export const BUNDLE_FORMAT_VERSION = 1;

/** What a bundle is sent as: JSON, or YAML under its registered type or the older ones tools still send. */
export const bundleMediaTypes = ['application/json', 'application/yaml', 'application/x-yaml', 'text/yaml'] as const;

/** The most supervisors or agents a bundle may hold. */
export const MAX_BUNDLE_ENTRIES = 500;

/** Two entries of one list with one role (compared without case or accents) cannot both be matched. */
function uniqueRoles(entries: { role: string }[], list: string, ctx: z.core.$RefinementCtx) {
  const seen = new Set<string>();
  entries.forEach((entry, index) => {
    const role = fold(entry.role);
    if (seen.has(role)) {
      ctx.addIssue({ code: 'custom', message: `Another entry of ${list} has this role (roles are compared without case or accents)`, path: [list, index, 'role'] });
    }
    seen.add(role);
  });
}

/** The bundle's request schemas, made on first call (when a route's chain or the API description is built), never as a function loads. */
export const bundleSchemas = lazy(() => {
  const agents = agentSchemas();

  /** An entry's fields (`agent.fields.ts`): references to the bot's resources and tags by name, constraints by value. */
  const entryFields = shapeOf(agentFields, 'bundle');

  const bundleAgentSchema = z.strictObject(entryFields);
  const bundleSupervisorSchema = z.strictObject({ default: optional(z.boolean()), ...entryFields });

  const bundleSchema = z
    .strictObject({
      formatVersion: z.literal(BUNDLE_FORMAT_VERSION),
      supervisors: z.array(bundleSupervisorSchema).check(z.maxLength(MAX_BUNDLE_ENTRIES, { message: `At most ${MAX_BUNDLE_ENTRIES} supervisors` })),
      agents: z.array(bundleAgentSchema).check(z.maxLength(MAX_BUNDLE_ENTRIES, { message: `At most ${MAX_BUNDLE_ENTRIES} agents` })),
    })
    .check(
      z.superRefine((bundle, ctx) => {
        uniqueRoles(bundle.supervisors, 'supervisors', ctx);
        uniqueRoles(bundle.agents, 'agents', ctx);
        bundle.supervisors.forEach((supervisor, index) => {
          if (supervisor.default && bundle.supervisors.findIndex((other) => other.default) !== index) {
            ctx.addIssue({ code: 'custom', message: 'Only one supervisor may be the default', path: ['supervisors', index, 'default'] });
          }
        });
      }),
    );

  /** `?at=`: an RFC 3339 time with its offset. */
  const bundleExportQuerySchema = z.object({
    at: z.optional(z.iso.datetime({ offset: true, message: 'Must be an RFC 3339 time, e.g. 2026-11-25T17:00:00Z' })),
  });

  return { bundleAgentSchema, bundleSupervisorSchema, bundleSchema, bundleExportQuerySchema, bundlePathSchema: agents.botPathSchema };
});

type BundleSchemas = ReturnType<typeof bundleSchemas>;
export type Bundle = z.infer<BundleSchemas['bundleSchema']>;
export type BundleEntry = z.infer<BundleSchemas['bundleAgentSchema']> & { default?: boolean };
