"""The `review` section of a submitted review round's report, typed for the schema
(`grading.core.review_check.grade_review`; the replays part as `review_replays_summary` builds it)."""

from rest_framework import serializers

from grading.core.review_check import DUPLICATE, FALSE_ALARM, FOUND, TONES
from grading.core.vocabulary import FIX_CATEGORIES


class ReviewFlawSerializer(serializers.Serializer):
    id = serializers.CharField()
    component = serializers.CharField(help_text='A palette kind, a node id or an arrow "a->b"')
    component_name = serializers.CharField(help_text="Where it sits, in the given design's own names")
    kind = serializers.CharField()
    kind_label = serializers.CharField()
    fix_category = serializers.ChoiceField(choices=FIX_CATEGORIES)
    scenario = serializers.CharField(help_text="The failure replay that shows it")
    description = serializers.CharField()
    found = serializers.BooleanField()
    mark = serializers.IntegerField(allow_null=True, help_text="The position of the mark that found it")


class ReviewMarkSerializer(serializers.Serializer):
    position = serializers.IntegerField(help_text="1 for the first mark")
    target = serializers.CharField(help_text='A node id or an arrow "a->b"')
    target_name = serializers.CharField()
    what = serializers.CharField(allow_blank=True)
    how = serializers.CharField(allow_blank=True)
    verdict = serializers.ChoiceField(choices=[FOUND, DUPLICATE, FALSE_ALARM])
    tone = serializers.ChoiceField(choices=sorted(set(TONES.values())))
    flaw = serializers.CharField(allow_null=True, help_text="The flaw it found, or the one it repeats")
    message = serializers.CharField()


class RankedFixSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    text = serializers.CharField()
    category = serializers.ChoiceField(choices=FIX_CATEGORIES)


class ReviewRankingSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    verdict = serializers.ChoiceField(choices=["ok", "infrastructure_first", "no_fixes"])
    message = serializers.CharField()
    fixes = RankedFixSerializer(many=True)


class ReviewWeightsSerializer(serializers.Serializer):
    flaws = serializers.FloatField()
    precision = serializers.FloatField()
    ranking = serializers.FloatField()
    replays = serializers.FloatField()


class SloCheckSerializer(serializers.Serializer):
    key = serializers.CharField()
    target = serializers.FloatField()
    actual = serializers.FloatField(allow_null=True, help_text="None when the run never measured it")
    words = serializers.CharField(help_text='"95th-percentile time to first token ≤ 2 s"')
    actual_words = serializers.CharField()
    passed = serializers.BooleanField(help_text="Met in every run")
    reason = serializers.CharField(required=False, help_text="Why there is no actual value")
    met = serializers.IntegerField(required=False, help_text="Runs (one per seed) that met it")
    runs = serializers.IntegerField(required=False, help_text="Runs, one per seed")


class ReviewReplaySideSerializer(serializers.Serializer):
    passed = serializers.BooleanField(help_text="Every run met the SLO")
    met = serializers.IntegerField(required=False, help_text="Runs (one per seed) that met every SLO check")
    runs = serializers.IntegerField(required=False, help_text="Runs, one per seed")
    slo_checks = SloCheckSerializer(many=True, help_text="Each check; actual is the median over the runs")
    error = serializers.CharField(required=False, help_text="Why this side could not run")


class ReviewScenarioSerializer(serializers.Serializer):
    scenario = serializers.CharField()
    title = serializers.CharField()
    given = ReviewReplaySideSerializer(
        help_text="The given design (the model at its defaults or the variant)"
    )
    fixed = ReviewReplaySideSerializer(help_text="Your fixed design (the model with your fixed sheet)")
    reference_fix = ReviewReplaySideSerializer(
        required=False, help_text="The reference fix (the model with the question's fix values)"
    )
    fallbacks = serializers.DictField(
        child=serializers.CharField(), help_text="Your numbers the replay could not use, and why"
    )


class FailureCostSerializer(serializers.Serializer):
    candidate = serializers.FloatField(allow_null=True, help_text="Your median cost a run (USD)")
    reference = serializers.FloatField(allow_null=True, help_text="The fix's median cost a run (USD)")
    ratio = serializers.FloatField(allow_null=True)
    factor = serializers.FloatField(help_text="1 up to 1.25x the cost, then 1.25 / ratio")


class FailureScenarioSerializer(serializers.Serializer):
    title = serializers.CharField()
    runs = serializers.IntegerField()
    met = serializers.IntegerField(help_text="Your runs that met every SLO check")
    seed_dependent = serializers.BooleanField()
    reference_runs = serializers.IntegerField()
    reference_met = serializers.IntegerField()
    breaks_every_design = serializers.BooleanField(help_text="The reference fix misses it in every run")
    run_credits = serializers.ListField(child=serializers.FloatField())
    base = serializers.FloatField()
    cost = FailureCostSerializer()
    credit = serializers.FloatField(help_text="0 to 1")
    score = serializers.FloatField(help_text="0 to 100")
    lines = serializers.ListField(child=serializers.CharField(), help_text="Why it scored what it did")


class FailureReportSerializer(serializers.Serializer):
    score = serializers.FloatField(allow_null=True, help_text="0 to 100; None with nothing to score")
    scenarios = serializers.DictField(child=FailureScenarioSerializer(), help_text="By scenario name")


class ReviewReplaysSerializer(serializers.Serializer):
    pending = serializers.BooleanField(required=False, help_text="Present while the replays still run")
    scenarios = ReviewScenarioSerializer(many=True)
    fixed_meets = serializers.BooleanField()
    fixed_met = serializers.IntegerField(help_text="Scenarios the fixed design met in every run")
    fixed_run_share = serializers.FloatField(
        required=False, help_text="Sum over scenarios of the share of the fixed design's runs that met it"
    )
    given_failed = serializers.IntegerField()
    total = serializers.IntegerField()
    reference_fix = serializers.BooleanField(required=False, help_text="The reference fix was replayed too")
    failure = FailureReportSerializer(
        required=False, help_text="The fixed design's failure score against the reference fix"
    )


class ReviewScoresSerializer(serializers.Serializer):
    """Part scores 0 to 1 and the review score 0 to 100; the replays part and the score are None while the
    replays are pending."""

    flaws = serializers.FloatField()
    precision = serializers.FloatField()
    ranking = serializers.FloatField()
    replays = serializers.FloatField(allow_null=True)
    review = serializers.FloatField(allow_null=True)


class FixedSheetLineSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label
    unit = serializers.CharField(allow_blank=True)
    given = serializers.CharField(help_text="The given design's value")
    yours = serializers.CharField(help_text="Your fixed design's value as typed (else the given one)")
    reference = serializers.CharField(help_text="The reference fix's value")


class ReviewSerializer(serializers.Serializer):
    flaws = ReviewFlawSerializer(many=True)
    marks = ReviewMarkSerializer(many=True)
    found = serializers.ListField(child=serializers.CharField(), help_text="The ids of the flaws found")
    missed = serializers.ListField(child=serializers.CharField())
    false_alarms = serializers.IntegerField()
    duplicates = serializers.IntegerField()
    ranking = ReviewRankingSerializer()
    weights = ReviewWeightsSerializer()
    review_share = serializers.FloatField(help_text="The review score's share of the overall score")
    engine_overall = serializers.FloatField(allow_null=True, help_text="The engine's overall score")
    fixed_sheet = FixedSheetLineSerializer(
        many=True, required=False, help_text="Sheet 2: the fixed design's lines, given, yours and the fix's"
    )
    replays = ReviewReplaysSerializer()
    scores = ReviewScoresSerializer()
