/** A bot of realistic agents, as the agents and bundles benchmarks seed it through the product's services. */
import { agentCreateSchema } from '../../shared/domain/agents/agent.schemas';
import { createAgent } from '../../shared/domain/agents/agent-write.service';
import { operatorScope } from '../../shared/domain/agents/bot-scope';
import { eachLimited } from '../../shared/app/bulk/bulk-create.rules';
import { addBot, addCollection, addEnvironment, addFunction, addPersona, addSupervisor } from '../../shared/app/operator/operator.service';

export const TOPICS = ['billing', 'shipping', 'returns', 'warranty claims', 'account security', 'product advice', 'loyalty points', 'gift cards', 'subscriptions'];
const TAGS = ['#billing', '#orders', '#returns', '#support', '#sales', '#vip', '#b2b', '#faq', '#escalation', '#loyalty', '#stores', '#tech'];
export const instructions = (topic: string) =>
  `You handle every question about ${topic}. Greet the customer by name when it is known, then restate the question in one sentence. ` +
  `Look up the facts with the functions you have before answering, and quote order numbers, dates and amounts exactly. Keep answers ` +
  `to three sentences, then offer one follow-up. When the customer is upset, acknowledge it once and move on to a next step. If a ` +
  `question about ${topic} needs a decision you cannot make, explain why and hand over to a person with a summary of the conversation.`;

/**
 * A new environment and bot with 2 personas, 4 functions, 2 collections, a default supervisor and
 * `count` agents (`createAgent`, 8 at a time). Every bot gets resources of the same names.
 */
export async function seedBot(orgUuid: string, count: number, environmentName = 'Benchmark') {
  const environment = await addEnvironment(orgUuid, environmentName);
  const bot = await addBot(orgUuid, environment.uuid, `Benchmark bot (${count} agents)`);
  const styles = ['EMPATHETIC_AND_HELPFUL', 'CONCISE_AND_PROFESSIONAL'] as const;
  const personas = await Promise.all(styles.map((style, i) => addPersona(bot.uuid, { name: `Persona ${i}`, backstory: 'Years of care.', personality: 'Warm', communicationStyle: style })));
  const functions = await Promise.all(['lookupOrder', 'createTicket', 'checkStock', 'refundPayment'].map((name) => addFunction(bot.uuid, name)));
  const collections = await Promise.all(['Product manuals', 'Policies'].map((name, i) => addCollection(bot.uuid, { name, description: name, documentCount: 7 + 35 * i })));
  await addSupervisor(bot.uuid, { role: 'Supervisor', goal: 'Route each conversation to the right agent', personaUuid: personas[0]!.uuid, isDefault: true });
  const agentUuids = new Array<string>(count);
  await eachLimited([...agentUuids.keys()], 8, async (i) => {
    const topic = TOPICS[i % TOPICS.length]!;
    const body = agentCreateSchema.parse({
      role: `Agent ${String(i + 1).padStart(4, '0')}: ${topic} specialist`,
      goal: `Answer customer questions about ${topic} accurately and hand over to a person when asked.`,
      instructions: instructions(topic),
      guardrails: 'Never share personal data of other customers. Never promise refunds the functions did not confirm.',
      persona: { uuid: personas[i % 2]!.uuid },
      inheritFromSupervisor: i % 3 !== 0,
      constraints: [{ value: `Confirm the customer's identity before discussing ${topic}` }, { value: 'Answer in the language of the customer' }],
      tags: [{ name: TAGS[i % TAGS.length]! }, { name: TAGS[(i + 5) % TAGS.length]! }],
      parameters: { maximumTokens: 1024, requestTimeout: 30_000, temperature: 0.2 + (i % 5) / 10, topP: 0.9, presencePenalty: 0, frequencyPenalty: 0.1 },
      functions: [{ uuid: functions[i % 4]!.uuid }, { uuid: functions[(i + 1) % 4]!.uuid }],
      knowledge: [{ uuid: collections[i % 2]!.uuid }],
    });
    agentUuids[i] = (await createAgent(operatorScope(bot), body)).record.uuid;
  });
  return { environment, bot, agentUuids };
}
