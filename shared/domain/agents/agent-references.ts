import { randomUUID } from 'node:crypto';
import { ValidationError, type FieldIssue } from '../../kernel/errors';
import type { Bot, Tag } from '../org/org.entities';
import { findTags, getBotResources, insertTag, type BotResources } from './agent.repository';

/** What an agent or supervisor body refers to, by uuid (and tags by name). */
export interface References {
  persona: { uuid: string };
  functions?: { uuid: string }[];
  knowledge?: { uuid: string }[];
  tags?: { uuid?: string; name: string }[];
}

/**
 * Checks every reference of a body against the bot (persona, functions, knowledge) and the
 * organization (tags) and returns what a write needs, or every problem at once. Nothing is written
 * here except, once all is valid, the organization's new tags.
 */
export async function resolveReferences(
  bot: Bot,
  body: References,
  extraIssues: FieldIssue[] = [],
): Promise<{ resources: BotResources; tags: Tag[] }> {
  const functions = body.functions ?? [];
  const knowledge = body.knowledge ?? [];
  const tags = body.tags ?? [];
  const [resources, existingTags] = await Promise.all([
    getBotResources(bot.uuid, {
      personas: [body.persona.uuid],
      functions: functions.map((f) => f.uuid),
      collections: knowledge.map((k) => k.uuid),
    }),
    findTags(bot.orgUuid, [...new Set(tags.map((tag) => tag.name.toLowerCase()))]),
  ]);
  const issues = [...extraIssues];
  const invalid = (fieldName: string, message: string) => issues.push({ fieldName, message, errorCode: 'FIELD_INVALID' });
  if (!resources.personas.some((p) => p.uuid === body.persona.uuid)) invalid('persona.uuid', `No persona ${body.persona.uuid} in this bot`);
  functions.forEach((f, i) => {
    if (!resources.functions.some((found) => found.uuid === f.uuid)) invalid(`functions.${i}.uuid`, `No function ${f.uuid} in this bot`);
  });
  knowledge.forEach((k, i) => {
    if (!resources.collections.some((found) => found.uuid === k.uuid)) invalid(`knowledge.${i}.uuid`, `No knowledge collection ${k.uuid} in this bot`);
  });
  const byName = new Map(existingTags.map((tag) => [tag.name.toLowerCase(), tag]));
  const seen = new Set<string>();
  tags.forEach((tag, i) => {
    const key = tag.name.toLowerCase();
    if (seen.has(key)) invalid(`tags.${i}.name`, 'Listed more than once');
    seen.add(key);
    if (tag.uuid && byName.get(key)?.uuid !== tag.uuid) invalid(`tags.${i}.uuid`, `Is not the uuid of the tag ${tag.name}`);
  });
  if (issues.length > 0) throw new ValidationError({ details: issues });
  return { resources, tags: await ensureTags(bot.orgUuid, tags.map((tag) => tag.name), byName) };
}

/** The tags of the given names, creating in the organization those that do not exist yet. */
export async function ensureTags(orgUuid: string, names: string[], known: Map<string, Tag>): Promise<Tag[]> {
  const result: Tag[] = [];
  for (const name of names) {
    let tag = known.get(name.toLowerCase());
    if (!tag) {
      const created = { uuid: randomUUID(), name };
      // Another request may create the same name first: then use its tag.
      tag = (await insertTag(orgUuid, created)) ? created : (await findTags(orgUuid, [name]))[0]!;
      known.set(name.toLowerCase(), tag);
    }
    result.push(tag);
  }
  return result;
}
