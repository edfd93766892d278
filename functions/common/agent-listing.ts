import { listAgents, type AgentKind, type AgentPosition, type ListQuery } from '../../shared/app/agents/agent-read.service';
import type { BotScope } from '../../shared/app/access/bot-access';
import { cursorOf, type ListingRequest } from '../../shared/edge/http/cursor-page';
import { pageOf } from '../../shared/edge/http/page';


/** A page of supervisors or agents, by number or by token (bound to the bot), with the next page's token. */
export async function agentListing(operationId: string, kind: AgentKind, input: ListingRequest & { query: ListQuery; scope: BotScope }) {
  const { query, scope } = input;
  const cursor = await cursorOf<AgentPosition>(operationId, scope.bot.uuid, input, 'page');
  const { items, total, next } = await listAgents(scope, kind, query, cursor.start?.after);
  const number = cursor.start?.number ?? query.page;
  return cursor.reply(pageOf(items, total, number, query.size), next && { number: number + 1, after: next });
}
