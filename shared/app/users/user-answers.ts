/** How the users function answers a user and an offline session: the users area's mappers, for the function that binds its routes. */
export { toOfflineSessionResponse, toUserResponse } from '../../domain/users/user.mapper';
