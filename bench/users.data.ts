/**
 * The users bench:users writes: realistic and reproducible (a fixed seed draws the same names,
 * companies, statuses and dates every run; only the uuids differ).
 */
import { randomUUID } from 'node:crypto';
import { keys } from '../shared/store/keys';
import { fold } from '../shared/text/matching';
import { indexWrites } from '../shared/users/user-index';
import type { Permission, UserRecord } from '../shared/users/user.entities';
import type { StoredUser } from '../shared/users/user.repository';

const list = (text: string) => text.split(', ');
export const FIRST_NAMES = list(
  'José, María, François, Zoë, Björn, Łukasz, Søren, Chloé, Renée, Jürgen, João, Inés, Çağla, Noémie, Mikołaj, Åsa, Héctor, Lucía, Raphaël, Ömer, ' +
    'Jiří, Andrés, Ágnes, Małgorzata, Thérèse, Ana, Ángel, Léa, Márton, Dagný, James, Olivia, Liam, Emma, Noah, Ava, William, Sophia, Benjamin, Mia, ' +
    'Lucas, Charlotte, Henry, Amelia, Alexander, Harper, Daniel, Ella, Matthew, Grace, Samuel, Hannah, David, Sarah, Joseph, Laura, Michael, Anna, ' +
    'Thomas, Julia, Peter, Yuki, Hiroshi, Min-jun, Wei, Priya, Arjun, Fatima, Omar, Aisha, Kwame, Nia',
);
export const LAST_NAMES = list(
  "García, Müller, Dubois, Søndergaard, O'Brien, Nguyễn, Kowalski, Rodríguez, Martínez, Hernández, López, González, Pérez, Sánchez, Ramírez, " +
    'Schäfer, Schröder, Weiß, Köhler, Lefèvre, Bérénger, Moreau, Fontaine, Rousseau, Öztürk, Yılmaz, Şahin, Çelik, Novák, Dvořák, Nowak, Wiśniewski, ' +
    'Wójcik, Lewandowski, Andersson, Johansson, Ekström, Lindqvist, Håkansson, Jørgensen, Nielsen, Rossi, Russo, Ferrari, Esposito, Bianchi, Colombo, ' +
    'Silva, Santos, Oliveira, Gonçalves, Fernandes, Tanaka, Suzuki, Takahashi, Kim, Park, Chen, Wang, Zhang, Patel, Sharma, Okafor, Mensah, Haddad, ' +
    'Murphy, Kelly, Walsh, Smith, Johnson, Williams, Brown, Jones, Miller, Davis, Taylor, Anderson, Thomas, Jackson, White, Harris, Martin, Thompson, ' +
    'Moore, Clark, Lewis, Robinson, Walker, Young, Allen, King, Wright, Scott, Hill, Green, Adams, Baker, Nelson, Carter, Mitchell, Roberts, Turner, ' +
    'Phillips, Campbell, Parker, Evans, Edwards, Collins, Stewart, Morris, Cooper, Richardson, Howard, Ward, Torres, Peterson, Gray, Ramos, Díaz, Hayes',
);
/** Name and mail domain; the first ones are the big customers. */
export const COMPANIES = list(
  'Nordwind Energie GmbH=nordwind-energie, Müller & Söhne KG=mueller-soehne, Café Lumière=cafe-lumiere, Grupo Andaluz de Logística=grupoandaluz, ' +
    'Fjordline Shipping AS=fjordline, Kraków Software Labs=krakowlabs, São Paulo Têxtil=sptextil, Helvetia Präzision AG=helvetia-praezision, ' +
    'Lyon Électrique=lyon-electrique, Évora Vinhos=evoravinhos, İstanbul Seramik=istanbulseramik, Vltava Glassworks=vltavaglass, Atlas Freight=atlasfreight, ' +
    'Meridian Health=meridianhealth, Northstar Insurance=northstar-insurance, Brightwave Media=brightwave, Crescent Foods=crescentfoods, ' +
    'Blue Harbor Bank=blueharborbank, Pinecrest Retail=pinecrest, Summit Telecom=summittelecom, Redwood Analytics=redwood-analytics, ' +
    'Tokai Precision=tokai-precision, Han River Electronics=hanriver, Dublin Bay Travel=dublinbaytravel, Sunrise Pharmacy=sunrisepharmacy, ' +
    'Riverside Hospital=riverside-hospital, Greenfield Farms=greenfieldfarms, Harbor City Council=harborcity, Oakridge University=oakridge, Polaris Logistics=polarislogistics',
).map((pair) => ({ name: pair.split('=')[0]!, domain: `${pair.split('=')[1]!}.example` }));

/** mulberry32: a small seeded generator. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SPELT: Record<string, string> = { ł: 'l', ø: 'o', æ: 'ae', ß: 'ss', ı: 'i', đ: 'd' };
/** The ASCII a mailbox name is made of: folded, a few letters spelt out, everything else dropped. */
const mailbox = (text: string) => fold(text).replace(/[łøæßıđ]/g, (char) => SPELT[char]!).replace(/[^a-z0-9]+/g, '');

/**
 * `count` users: accented names (some with two first names or a double surname), company e-mails, one
 * of 30 companies (skewed; about 8 % without), a third with an image, created over four years, about
 * 5 % DELETED; every one a VIEWER with `permission`. Also each user's first name, to pick search terms.
 */
export function generateUsers(orgUuid: string, permission: Permission, count: number, seed = 20_261_121) {
  const random = seeded(seed);
  const pick = <T>(from: readonly T[]) => from[Math.floor(random() * from.length)]!;
  const end = Date.now() - 24 * 3600_000;
  const start = end - 4 * 365 * 24 * 3600_000;
  const taken = new Set<string>();
  const users: UserRecord[] = [];
  const firstNames: string[] = [];
  for (let i = 0; i < count; i++) {
    const [first, second, last, double] = [pick(FIRST_NAMES), random() < 0.1 ? pick(FIRST_NAMES) : '', pick(LAST_NAMES), random() < 0.08 ? pick(LAST_NAMES) : ''];
    const company = random() < 0.08 ? undefined : COMPANIES[Math.floor(COMPANIES.length * random() ** 1.6)]!;
    const local = `${mailbox(first)}.${mailbox(last)}`;
    const domain = company?.domain ?? pick(['mail.example', 'post.example', 'inbox.example']);
    let email = `${local}@${domain}`;
    for (let n = 2; taken.has(email); n++) email = `${local}${n}@${domain}`;
    taken.add(email);
    const [created, deleted] = [start + random() * (end - start), random() < 0.05];
    const updated = created + random() ** 3 * (end - created);
    const uuid = randomUUID();
    users.push({
      uuid,
      orgUuid,
      name: [first, second, double ? `${last}-${double}` : last].filter(Boolean).join(' '),
      email,
      ...(random() < 0.35 ? { image: `https://images.example/avatars/${uuid}.png` } : {}),
      ...(company ? { company: company.name } : {}),
      role: 'VIEWER',
      permissions: [permission],
      status: deleted ? 'DELETED' : 'ACTIVE',
      createdAt: new Date(created).toISOString(),
      updatedAt: new Date(updated).toISOString(),
    });
    firstNames.push(first);
  }
  return { users, firstNames };
}

/** Two words as someone types them (lower case, no accents), an accented first name and a company's first word, written most nearly 8 times. */
export function searchTermsFor(users: UserRecord[], firstNames: string[]): string {
  const counts = new Map<string, number>();
  users.forEach((user, i) => {
    const first = firstNames[i]!;
    if (user.status !== 'ACTIVE' || !user.company || fold(first) === first.toLowerCase()) return;
    const pair = `${fold(first)} ${fold(user.company.split(' ')[0]!)}`;
    counts.set(pair, (counts.get(pair) ?? 0) + 1);
  });
  return [...counts].sort(([a, x], [b, y]) => Math.abs(x - 8) - Math.abs(y - 8) || (a < b ? -1 : 1))[0]![0];
}

/**
 * The items the product holds for a user it registered: the user item as `writeUser` stores it
 * (counted under its status), its users-index items (`indexWrites` of a new user, less the count
 * update: the seeder sets the count once), and its e-mail claim, done.
 */
export function storedItemsOf(user: UserRecord): Record<string, unknown>[] {
  const stored: StoredUser = { ...user, countedStatus: user.status };
  const index = indexWrites(stored, undefined).flatMap((write) => (write.Put ? [write.Put.Item as Record<string, unknown>] : []));
  const claim = { ...keys.emailClaim(user.orgUuid, user.email), type: 'EMAIL', userUuid: user.uuid, state: 'DONE', claimedAt: user.createdAt };
  return [{ ...keys.user(user.orgUuid, user.uuid, user.createdAt), type: 'USER', ...stored }, ...index, claim];
}
