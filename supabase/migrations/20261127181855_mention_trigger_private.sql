revoke execute on function private.mention_members() from public;
