import { agentReadKeys, type AgentView, type Prefetched } from '../../shared/app/agents/agent-read.service';
import type { ExpectedVersions } from '../../shared/app/agents/agent-write.service';
import type { BotPath, BotScope } from '../../shared/app/access/bot-access';
import { versionsOfIfMatch } from '../../shared/edge/http/etag';
import { agentAnswer } from './agent-answer';

/** What a supervisor's or an agent's update use case takes: the one addressed, its body, the versions `If-Match` names. */
type UpdateCase<B> = (scope: BotScope<'write'>, uuid: string, body: B, expected: ExpectedVersions | undefined, prefetched: Prefetched) => Promise<AgentView>;

/**
 * The binding of a supervisor's or an agent's update: the record read in the caller's batch, the
 * versions of `If-Match` expected, the answer with its new ETag.
 */
export function agentUpdate<P extends BotPath, B>(uuidOf: (path: P) => string, update: UpdateCase<B>) {
  return {
    prefetch: (path: P) => agentReadKeys(path, uuidOf(path)),
    handle: async ({ path, body, headers, scope, prefetched }: { path: P; body: B; headers: Record<string, string | undefined>; scope: BotScope<'write'>; prefetched: Prefetched }) =>
      agentAnswer(await update(scope, uuidOf(path), body, versionsOfIfMatch(headers['if-match']), prefetched)),
  };
}
