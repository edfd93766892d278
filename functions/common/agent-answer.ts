import { toAgentResponse, type AgentView } from '../../shared/domain/agents/agent.mapper';
import { withEtag } from '../../shared/edge/http/etag';

/** A supervisor or agent as the API answers it, its version as the ETag. */
export const agentAnswer = <const S extends number = 200>(view: AgentView, status: S = 200 as S) => withEtag(toAgentResponse(view), view.record.version, status);
