import { shownAgent, type AgentView } from '../../shared/app/agents/agent-read.service';
import { withEtag } from '../../shared/edge/http/etag';

/** A supervisor or agent as the API answers it, its version as the ETag. */
export const agentAnswer = <const S extends number = 200>(view: AgentView, status: S = 200 as S) => {
  const { agent, version } = shownAgent(view);
  return withEtag(agent, version, status);
};
