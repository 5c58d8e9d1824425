"""A third-party kind: objects when a field has more words than the entry allows."""

from supervisor import Execution, KindConfig, SpecialistKind, SpecialistResult, Verdict, hookimpl


class WordCountConfig(KindConfig):
    field: str = "command"
    max_words: int = 5


class WordCount:
    execution = Execution.INLINE

    def __init__(self, entry, config):
        self.entry, self.config = entry, config

    def evaluate(self, action, context):
        value = action.args.get(self.config.field)
        if not isinstance(value, str):
            return SpecialistResult.refuse()
        words = len(value.split())
        if words <= self.config.max_words:
            return SpecialistResult.ok()
        return SpecialistResult(
            verdict=Verdict(self.entry.default_verdict),
            reason=f"{words} words, more than {self.config.max_words}",
            correction="Split it into shorter commands.",
        )


@hookimpl
def supervisor_register_kinds():
    return [
        SpecialistKind(
            name="word_count",
            config_model=WordCountConfig,
            build=WordCount,
            version="0.0.1",
            description="counts words in a field",
        )
    ]
