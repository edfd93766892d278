import { toAgentResponse, type AgentView } from '../../shared/agents/agent.mapper';
import { withEtag } from '../../shared/http/etag';
import type { Reply } from '../../shared/http/types';

/** A supervisor or agent as the API answers it (spec 2.1), its version as the ETag. */
export const agentAnswer = (view: AgentView, status = 200): Reply => withEtag(toAgentResponse(view), view.record.version, status);
