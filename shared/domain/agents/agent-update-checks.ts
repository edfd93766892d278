import { randomUUID } from 'node:crypto';
import type { FieldIssue } from '../../kernel/errors';
import { agentFields, keptFields } from './agent.fields';
import type { AgentRecord, Rule } from './agent.repository';
import type { AgentResponse } from './agent.responses';
import type { SupervisorUpdate } from './agent.schemas';

/**
 * What an update body may say of a record beyond the fields it replaces: the read-only fields of a
 * read sent back (checked against the record), and the rules it keeps, changes or adds.
 */

const invalid = (fieldName: string, message: string): FieldIssue => ({ fieldName, message, errorCode: 'FIELD_INVALID' });

/**
 * `uuid` and `flowUUID`, which a read shows and no write sets: when given, they must be the record's
 * (the path names the record). `heirs` is derived from the bot's agents, so it is not checked.
 */
export function assignedIssues(current: AgentRecord, body: { uuid?: string; flowUUID?: string }): FieldIssue[] {
  const what = current.kind === 'AGENT' ? 'agent' : 'supervisor';
  return [
    ...(body.uuid !== undefined && body.uuid !== current.uuid
      ? [invalid('uuid', `Is not the uuid of this ${what} (${current.uuid}, as in the path); send that or leave the field out`)]
      : []),
    ...(body.flowUUID !== undefined && body.flowUUID !== current.flowUUID
      ? [invalid('flowUUID', `Is read-only and cannot be changed; send the current value (${current.flowUUID}) or leave the field out`)]
      : []),
  ];
}

/** Fields of a supervisor's read that its update does not change (`agent.fields.ts`). */
export { keptFields };

/** The `keptFields` a body gives with another value than the supervisor's read `shown` (as each field's `sameAsRead` compares them). */
export function keptIssues(shown: AgentResponse, body: SupervisorUpdate): FieldIssue[] {
  return keptFields
    .filter((field) => body[field] !== undefined && !agentFields[field].sameAsRead(body[field] as never, shown[field] as never))
    .map((field) => invalid(field, 'Cannot be changed through the supervisor update; send the current value (as a read shows it) or leave the field out'));
}

/**
 * Constraints of an update: a rule with a uuid must be one of the agent's (its text may change), one
 * without is new, and rules left out are removed.
 */
export function nextConstraints(current: Rule[], given: { uuid?: string; value: string }[] = []) {
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  const rules = given.map((rule, i) => {
    if (!rule.uuid) return { uuid: randomUUID(), value: rule.value };
    if (!current.some((existing) => existing.uuid === rule.uuid) || seen.has(rule.uuid)) {
      issues.push({ fieldName: `constraints.${i}.uuid`, message: 'Is not one of this agent’s rules', errorCode: 'FIELD_INVALID' });
    }
    seen.add(rule.uuid);
    return { uuid: rule.uuid, value: rule.value };
  });
  return { rules, issues };
}
