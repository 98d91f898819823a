# Sourced by the utils/*.sh scripts: what each of their option loops and
# error paths would otherwise repeat. The script defines `usage`; `die` may
# be redefined after sourcing (setup.sh forgets its current step first).

die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

# The last arms of every option loop: -h/--help prints the usage, anything
# else is an error.
help_or_unknown() {
  case $1 in
  -h | --help)
    usage
    exit 0
    ;;
  *)
    usage >&2
    die "unknown option '$1'"
    ;;
  esac
}
