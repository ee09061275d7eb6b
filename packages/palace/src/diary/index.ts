export {
  DIARY_HALL,
  type DiaryEntry,
  type DiaryReadOptions,
  type DiaryWriteOptions,
  diaryRead,
  diaryWing,
  diaryWrite,
} from "./diary.js";
